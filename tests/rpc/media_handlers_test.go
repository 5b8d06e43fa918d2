package rpc

import (
	"bytes"
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// TestFunctionMediaHandlers: a function returning a domain named like a
// media type answers that type, its value the body as it is, as
// PostgREST's media type handlers do; other types are 406 PGRST107,
// refused before the call.
func TestFunctionMediaHandlers(t *testing.T) {
	s := startServer(t)
	expect := func(t *testing.T, res *response, status int, contentType, body string) {
		t.Helper()
		if res.Status != status {
			t.Fatalf("status %d, want %d; body %s", res.Status, status, res.Body)
		}
		if got := res.Header.Get("Content-Type"); got != contentType {
			t.Errorf("Content-Type %q, want %q", got, contentType)
		}
		if string(res.Body) != body {
			t.Errorf("body %q, want %q", res.Body, body)
		}
	}
	notAcceptable := func(t *testing.T, res *response, accept string) {
		t.Helper()
		expect(t, res, http.StatusNotAcceptable, "application/json; charset=utf-8",
			`{"code":"PGRST107","details":null,"hint":null,"message":"None of these media types are available: `+accept+`"}`)
	}
	const page = "<html><body><h1>Welcome to pgrest</h1></body></html>"

	t.Run("text/html is the value, as PostgREST names it", func(t *testing.T) {
		expect(t, s.Get(t, "/rpc/welcome_page", "Accept", "text/html"), http.StatusOK, "text/html", page)
		expect(t, s.Do(t, http.MethodPost, "/rpc/welcome_page", "{}", "Accept", "text/html"), http.StatusOK, "text/html", page)
	})
	t.Run("without Accept the value is JSON", func(t *testing.T) {
		expect(t, s.Get(t, "/rpc/welcome_page"), http.StatusOK, "application/json; charset=utf-8",
			`"<html><body><h1>Welcome to pgrest</h1></body></html>"`)
	})
	t.Run("text/plain and text/xml take a charset", func(t *testing.T) {
		expect(t, s.Get(t, "/rpc/welcome", "Accept", "text/plain"), http.StatusOK, "text/plain; charset=utf-8", "Welcome to pgrest")
		expect(t, s.Get(t, "/rpc/greet_plain?name=Ann", "Accept", "text/plain"), http.StatusOK, "text/plain; charset=utf-8", "Hello, Ann")
		expect(t, s.Get(t, "/rpc/small_doc", "Accept", "text/xml"), http.StatusOK, "text/xml; charset=utf-8", `<doc lang="en">pgrest</doc>`)
	})
	t.Run("no value is an empty body", func(t *testing.T) {
		expect(t, s.Get(t, "/rpc/maybe_text?found=false", "Accept", "text/plain"), http.StatusOK, "text/plain; charset=utf-8", "")
	})
	t.Run("binary values are sent byte for byte", func(t *testing.T) {
		want, _ := hex.DecodeString("89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
			"1f15c4890000000d49444154789c6360f8ffff3f0005fe02fea7d6a4a80000000049454e44ae426082")
		for _, accept := range []string{"image/png", "image/png, */*",
			"text/html,application/xhtml+xml,application/xml;q=0.9,image/png,*/*;q=0.8"} {
			res := s.Get(t, "/rpc/pixel", "Accept", accept)
			if res.Status != http.StatusOK || res.Header.Get("Content-Type") != "image/png" || !bytes.Equal(res.Body, want) {
				t.Errorf("Accept %s: status %d, Content-Type %q, body %x", accept, res.Status, res.Header.Get("Content-Type"), res.Body)
			}
		}
	})
	t.Run("a */* function answers any type as octet-stream", func(t *testing.T) {
		for _, accept := range []string{"*/*", "app/bingo", "image/boingo"} {
			expect(t, s.Get(t, "/rpc/anything", "Accept", accept), http.StatusOK, "application/octet-stream", "any")
		}
	})
	t.Run("response.headers sets the Content-Type of a */* function", func(t *testing.T) {
		expect(t, s.Get(t, "/rpc/groucho", "Accept", "app/groucho"), http.StatusOK, "app/groucho", "groucho")
	})
	t.Run("HEAD answers the type without the body", func(t *testing.T) {
		expect(t, s.Head(t, "/rpc/welcome_page", "Accept", "text/html"), http.StatusOK, "text/html", "")
	})
	t.Run("a rows function takes its relation's aggregate", func(t *testing.T) {
		expect(t, s.Get(t, "/rpc/all_media_notes?order=id", "Accept", "text/plain"), http.StatusOK, "text/plain; charset=utf-8",
			"1: first\n2: second\n")
		expect(t, s.Get(t, "/media_notes?order=id.desc", "Accept", "text/plain"), http.StatusOK, "text/plain; charset=utf-8",
			"2: second\n1: first\n")
	})
	t.Run("other types are 406 PGRST107", func(t *testing.T) {
		notAcceptable(t, s.Get(t, "/rpc/welcome_page", "Accept", "text/plain"), "text/plain")
		notAcceptable(t, s.Get(t, "/rpc/welcome", "Accept", "text/xml"), "text/xml")
		// Only a function returning one value is a handler, as in PostgREST.
		notAcceptable(t, s.Get(t, "/rpc/welcome_twice", "Accept", "text/plain"), "text/plain")
		notAcceptable(t, s.Get(t, "/rpc/all_media_notes?select=id", "Accept", "text/plain"), "text/plain")
	})
	t.Run("a function that writes is not called for an unacceptable type", func(t *testing.T) {
		countBooks := func() int64 { return pgresttest.SQLInt(t, superDSN, "select count(*) from api.books") }
		before := countBooks()
		res := s.Do(t, http.MethodPost, "/rpc/add_book", `{"title":"Never written"}`, "Accept", "image/png")
		notAcceptable(t, res, "image/png")
		if after := countBooks(); after != before {
			t.Errorf("books %d after the refused call, %d before", after, before)
		}
	})
}
