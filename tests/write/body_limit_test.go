package write

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// logsBody is a JSON array of one logs row exactly size bytes long.
func logsBody(size int) string {
	const shell = `[{"msg":""}]`
	return `[{"msg":"` + strings.Repeat("x", size-len(shell)) + `"}]`
}

// expectTooLarge checks a 413 PGRST190 with the contract's error body.
func expectTooLarge(t *testing.T, res *response, limit int) {
	t.Helper()
	res.ExpectErrorFields(t, http.StatusRequestEntityTooLarge, "PGRST190", "Request body too large",
		fmt.Sprintf("The request body is larger than the limit of %d bytes.", limit),
		"Send a smaller body, or split the rows over several requests.")
}

// rawExchange writes head and then body (from a goroutine, so a server
// answering early is read while the body still streams) on a new
// connection to s, and reads one response.
func rawExchange(t *testing.T, s *server, head string, body io.Reader) *response {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	go func() {
		if _, err := io.WriteString(conn, head); err == nil && body != nil {
			_, _ = io.Copy(conn, body) // fails once the server closes: expected
		}
	}()
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading the response body: %v", err)
	}
	return &response{&pgresttest.Response{Method: http.MethodPost, Status: res.StatusCode, Header: res.Header, Body: b}}
}

// postHead is the head of a JSON POST to /logs on s with the framing
// headers given (each ending in CRLF).
func postHead(s *server, framing string) string {
	return "POST /logs HTTP/1.1\r\nHost: " + strings.TrimPrefix(s.URL, "http://") +
		"\r\nContent-Type: application/json\r\n" + framing + "\r\n"
}

// chunk is one HTTP/1.1 chunk holding data.
func chunk(data string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(data), data) }

func TestBodyLimit(t *testing.T) {
	const limit = 1000
	s := startServer(t, fmt.Sprintf("max_body_size %d", limit))
	logs := "select msg from api.logs order by msg"
	reset(t)
	before := snapshot(t, "api.logs")

	t.Run("a body of exactly max_body_size is written", func(t *testing.T) {
		defer reset(t)
		s.do(t, http.MethodPost, "/logs", logsBody(limit)).expectStatus(t, http.StatusCreated)
		expectRows(t, "select length(msg) as n from api.logs where msg like 'xx%'", fmt.Sprintf(`[{"n":%d}]`, limit-12))
	})
	t.Run("a Content-Length over max_body_size is 413 PGRST190 and nothing is written", func(t *testing.T) {
		expectTooLarge(t, s.do(t, http.MethodPost, "/logs", logsBody(limit+1)), limit)
		jsonEqual(t, logs, []byte(snapshot(t, "api.logs")), before)
	})
	t.Run("a chunked body over max_body_size is 413 PGRST190 and nothing is written", func(t *testing.T) {
		body := logsBody(limit + 1)
		head := postHead(s, "Transfer-Encoding: chunked\r\n")
		res := rawExchange(t, s, head, strings.NewReader(chunk(body[:600])+chunk(body[600:])+"0\r\n\r\n"))
		expectTooLarge(t, res, limit)
		jsonEqual(t, logs, []byte(snapshot(t, "api.logs")), before)
	})
	t.Run("a chunked body with a small Content-Length beside it is 413 PGRST190", func(t *testing.T) {
		// HTTP/1.1 lets Transfer-Encoding override Content-Length, so the
		// small length must not let the chunks past the limit.
		body := logsBody(limit + 1)
		head := postHead(s, "Content-Length: 10\r\nTransfer-Encoding: chunked\r\n")
		res := rawExchange(t, s, head, strings.NewReader(chunk(body)+"0\r\n\r\n"))
		expectTooLarge(t, res, limit)
		jsonEqual(t, logs, []byte(snapshot(t, "api.logs")), before)
	})
	t.Run("a Content-Length smaller than the body sent is held to: the rest is never read as body", func(t *testing.T) {
		body := logsBody(limit * 4)
		head := postHead(s, "Content-Length: 20\r\n")
		res := rawExchange(t, s, head, strings.NewReader(body))
		// The 20 bytes declared are a truncated JSON array.
		res.expectError(t, http.StatusBadRequest, "PGRST102")
		jsonEqual(t, logs, []byte(snapshot(t, "api.logs")), before)
	})
	t.Run("a function call's body over max_body_size is 413 PGRST190", func(t *testing.T) {
		body := `{"item_id":1,"pad":"` + strings.Repeat(" ", limit) + `"}`
		expectTooLarge(t, s.do(t, http.MethodPost, "/rpc/bump_price", body), limit)
		expectRows(t, "select price from api.items where id = 1", `[{"price":12.5}]`)
	})
	t.Run("an update's body over max_body_size is 413 PGRST190", func(t *testing.T) {
		body := `{"msg":"` + strings.Repeat("x", limit+1-len(`{"msg":""}`)) + `"}`
		expectTooLarge(t, s.do(t, http.MethodPatch, "/logs?msg=eq.x", body), limit)
		jsonEqual(t, logs, []byte(snapshot(t, "api.logs")), before)
	})
}

// chunkedJSON is a chunked body of about n bytes of logs rows, made as
// it is read: the test never holds the body. It is an unclosed JSON array,
// which only a server reading it all would notice. sent counts the bytes
// read from it, for the writer and the test's goroutine alike.
type chunkedJSON struct {
	left  int64
	chunk string
	at    int // read position in chunk
	ended bool
	sent  atomic.Int64
}

func newChunkedJSON(n int64) *chunkedJSON {
	return &chunkedJSON{left: n, chunk: chunk("[" + strings.Repeat(`{"msg":"`+strings.Repeat("y", 50)+`"},`, 500))}
}

func (c *chunkedJSON) Read(p []byte) (int, error) {
	switch {
	case c.ended:
		return 0, io.EOF
	case c.left <= 0 && c.at == 0:
		c.ended = true
		return copy(p, "0\r\n\r\n"), nil
	}
	n := copy(p, c.chunk[c.at:])
	c.at, c.left = (c.at+n)%len(c.chunk), c.left-int64(n)
	c.sent.Add(int64(n))
	return n, nil
}

// A 200 MB anonymous chunked POST is refused with 413 once max_body_size
// (the default, 10MiB) has streamed in: the server allocates about the
// limit, not the body, and answers before the client has sent it, with
// what the connection's buffers hold past the limit.
func TestBodyLimitBoundsMemory(t *testing.T) {
	s := startServer(t)
	reset(t)
	before := snapshot(t, "api.logs")
	const (
		bodySize = 200 << 20
		// sentLimit bounds what the client may have sent when the 413
		// is in: the limit, the socket buffers on both sides and the
		// server's discard of an unread body, far from the 200 MB.
		sentLimit = 50 << 20
	)

	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	head := postHead(s, "Transfer-Encoding: chunked\r\n")
	body := newChunkedJSON(bodySize)
	res := rawExchange(t, s, head, body)
	sent := body.sent.Load()
	runtime.ReadMemStats(&m1)

	expectTooLarge(t, res, 10<<20)
	t.Logf("refused after %d MB sent, %d MB allocated", sent>>20, (m1.TotalAlloc-m0.TotalAlloc)>>20)
	if grown := m1.TotalAlloc - m0.TotalAlloc; grown > 50<<20 {
		t.Errorf("the process allocated %d MB while refusing the body, want under 50 MB", grown>>20)
	}
	if sent > sentLimit {
		t.Errorf("the client had sent %d MB of the body when the 413 came, want under %d MB: the server read on past the limit",
			sent>>20, sentLimit>>20)
	}
	jsonEqual(t, "api.logs", []byte(snapshot(t, "api.logs")), before)
}
