package read

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// mediaDB is the database of fixtures.MediaHandlersSQL, made once in the
// package's cluster (beside read.sql's, whose roles it uses) after
// installing PostGIS when it is missing: these tests fail, never skip,
// without it.
var mediaDB = &extraDB{name: "pgrest_media", sql: fixtures.MediaHandlersSQL, prepare: pgtest.EnsurePostGIS, timeout: 2 * time.Minute}

// startMediaServer serves the media schema of the media handler fixture.
func startMediaServer(t testing.TB) *server {
	t.Helper()
	dsn := mediaDB.superDSN(t)
	return pgresttest.Start(t, map[string]string{
		"db_uri":       pgtest.DSNFor(dsn, fixtures.Authenticator, fixtures.AuthenticatorPassword),
		"db_schemas":   fixtures.MediaSchema,
		"db_anon_role": fixtures.AnonRole,
		"jwt_secret":   jwtSecret,
	})
}

// TestMediaTypeHandlers: aggregates returning a domain named like a media
// type render a relation's rows in that type, as PostgREST's media type
// handlers do; the builtin handlers (JSON, CSV, GeoJSON) answer the rest.
func TestMediaTypeHandlers(t *testing.T) {
	s := startMediaServer(t)
	superDSN := mediaDB.superDSN(t)

	t.Run("a relation's aggregate renders its rows, bytes as they are", func(t *testing.T) {
		res := s.Get(t, "/lines?order=id", "Accept", "application/vnd.twkb")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Content-Type", "application/vnd.twkb")
		var want string
		queryRow(t, superDSN, "select encode(media.twkb_agg(l order by id), 'hex') from media.lines l", &want)
		if got := hex.EncodeToString(res.Body); got != want || want == "" {
			t.Errorf("body %s, want %s", got, want)
		}
	})
	t.Run("filters choose the rows the aggregate takes", func(t *testing.T) {
		res := s.Get(t, "/lines?id=eq.1", "Accept", "application/vnd.twkb")
		res.ExpectStatus(t, http.StatusOK)
		var want string
		queryRow(t, superDSN, "select encode(public.st_astwkb(geom), 'hex') from media.lines where id = 1", &want)
		if got := hex.EncodeToString(res.Body); got != want {
			t.Errorf("body %s, want %s", got, want)
		}
	})
	t.Run("a relation's own handler needs the relation's shape", func(t *testing.T) {
		for _, path := range []string{"/lines?select=id", "/lines?select=id,name,geom", "/lines?select=name,id,geom"} {
			checkFailure(t, s.Get(t, path, "Accept", "application/vnd.twkb"), failure{status: http.StatusNotAcceptable,
				code: "PGRST107", message: "None of these media types are available: application/vnd.twkb"})
		}
	})
	t.Run("an aggregate over anyelement serves every relation, any select", func(t *testing.T) {
		res := s.Get(t, "/scratch?select=id,label&order=id", "Accept", "text/plain")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Content-Type", "text/plain; charset=utf-8")
		if want := "(1,one)\n(2,two)\n(3,three)\n"; string(res.Body) != want {
			t.Errorf("body %q, want %q", res.Body, want)
		}
		res = s.Get(t, "/lines?select=id&order=id.desc", "Accept", "text/plain")
		res.ExpectStatus(t, http.StatusOK)
		if want := "(2)\n(1)\n"; string(res.Body) != want {
			t.Errorf("body %q, want %q", res.Body, want)
		}
	})
	t.Run("a handler overrides the builtin CSV for its relation, headers and all", func(t *testing.T) {
		res := s.Get(t, "/lines?order=id", "Accept", "text/csv")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Content-Type", "text/csv; charset=utf-8")
		expectHeader(t, res, "Content-Disposition", `attachment; filename="lines.csv"`)
		if want := "\ufeffid,name\n1,line-1\n2,line-2\n"; string(res.Body) != want {
			t.Errorf("body %q, want %q", res.Body, want)
		}
	})
	t.Run("other relations keep the builtin CSV", func(t *testing.T) {
		res := s.Get(t, "/scratch?select=id,label&id=lt.3&order=id", "Accept", "text/csv")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Content-Type", "text/csv; charset=utf-8")
		if want := "id,label\n1,one\n2,two"; string(res.Body) != want {
			t.Errorf("body %q, want %q", res.Body, want)
		}
	})
	t.Run("a text/xml handler answers text/xml", func(t *testing.T) {
		res := s.Get(t, "/xmldocs?order=id", "Accept", "text/xml")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Content-Type", "text/xml; charset=utf-8")
		if want := "<a>one</a><b/>"; string(res.Body) != want {
			t.Errorf("body %q, want %q", res.Body, want)
		}
	})
	t.Run("a */* handler answers any media type and no Accept, as octet-stream", func(t *testing.T) {
		for _, accept := range [][]string{nil, {"Accept", "*/*"}, {"Accept", "magic/number"}, {"Accept", "application/json"}} {
			res := s.Get(t, "/notes?order=id", accept...)
			res.ExpectStatus(t, http.StatusOK)
			expectHeader(t, res, "Content-Type", "application/octet-stream")
			if want := "first\nsecond\n"; string(res.Body) != want {
				t.Errorf("Accept %v: body %q, want %q", accept, res.Body, want)
			}
		}
	})
	t.Run("vendor types are never overridden", func(t *testing.T) {
		res := s.Get(t, "/notes?id=eq.1", "Accept", "application/vnd.pgrst.object+json")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Content-Type", "application/vnd.pgrst.object+json; charset=utf-8")
		expectCompactBody(t, res.Body, `{"id":1,"body":"first"}`)
		res = s.Get(t, "/notes?id=eq.1", "Accept", "application/vnd.pgrst.object;nulls=stripped")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Content-Type", "application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8")
		res = s.Get(t, "/notes?id=eq.1", "Accept", "application/vnd.pgrst.array+json;nulls=stripped")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Content-Type", "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8")
		expectCompactBody(t, res.Body, `[{"id":1,"body":"first"}]`)
	})
	t.Run("the first acceptable media range wins, by quality", func(t *testing.T) {
		res := s.Get(t, "/lines?id=eq.1&select=id", "Accept", "text/html, application/vnd.twkb;q=0.9, text/plain;q=0.8")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Content-Type", "text/plain; charset=utf-8")
		res = s.Get(t, "/scratch?id=eq.1", "Accept", "text/plain;q=0.5, application/json")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Content-Type", "application/json; charset=utf-8")
	})
	t.Run("nothing acceptable is 406 PGRST107 naming what was asked", func(t *testing.T) {
		checkFailure(t, s.Get(t, "/scratch", "Accept", "text/html, image/png"), failure{status: http.StatusNotAcceptable,
			code: "PGRST107", message: "None of these media types are available: text/html, image/png"})
		checkFailure(t, s.Get(t, "/scratch", "Accept", "undefined"), failure{status: http.StatusNotAcceptable,
			code: "PGRST107", message: "None of these media types are available: undefined"})
	})
}

// TestGeoJSON: with PostGIS, any relation with a geometry column answers
// application/geo+json with a FeatureCollection built by ST_AsGeoJSON.
func TestGeoJSON(t *testing.T) {
	s := startMediaServer(t)
	type feature struct {
		Type     string `json:"type"`
		Geometry struct {
			Type        string      `json:"type"`
			Coordinates [][]float64 `json:"coordinates"`
		} `json:"geometry"`
		Properties map[string]any `json:"properties"`
	}
	type collection struct {
		Type     string    `json:"type"`
		Features []feature `json:"features"`
	}
	read := func(t *testing.T, path string) collection {
		t.Helper()
		res := s.Get(t, path, "Accept", "application/geo+json")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Content-Type", "application/geo+json; charset=utf-8")
		var c collection
		if err := json.Unmarshal(res.Body, &c); err != nil {
			t.Fatalf("body is not GeoJSON: %v\n%s", err, res.Body)
		}
		if c.Type != "FeatureCollection" {
			t.Errorf("type %q, want FeatureCollection", c.Type)
		}
		return c
	}
	t.Run("each row is a Feature, its other columns the properties", func(t *testing.T) {
		c := read(t, "/lines?order=id")
		if len(c.Features) != 2 {
			t.Fatalf("%d features, want 2", len(c.Features))
		}
		f := c.Features[0]
		if f.Type != "Feature" || f.Geometry.Type != "LineString" {
			t.Errorf("feature %+v", f)
		}
		if got, _ := json.Marshal(f.Geometry.Coordinates); string(got) != "[[1,1],[5,5]]" {
			t.Errorf("coordinates %s, want [[1,1],[5,5]]", got)
		}
		if got, _ := json.Marshal(f.Properties); string(got) != `{"id":1,"name":"line-1"}` {
			t.Errorf("properties %s", got)
		}
	})
	t.Run("select and filters shape the features", func(t *testing.T) {
		c := read(t, "/lines?select=name,geom&id=eq.2")
		if len(c.Features) != 1 {
			t.Fatalf("%d features, want 1", len(c.Features))
		}
		if got, _ := json.Marshal(c.Features[0].Properties); string(got) != `{"name":"line-2"}` {
			t.Errorf("properties %s", got)
		}
	})
	t.Run("no rows are an empty collection", func(t *testing.T) {
		if c := read(t, "/lines?id=eq.99"); len(c.Features) != 0 {
			t.Errorf("features %+v, want none", c.Features)
		}
	})
}

// TestMediaWrites: a write negotiates Accept before it runs, whatever it
// returns: an unacceptable one writes nothing. A representation takes
// the relation's handlers as a read does.
func TestMediaWrites(t *testing.T) {
	s := startMediaServer(t)
	superDSN := mediaDB.superDSN(t)
	count := func(t *testing.T, id int) int64 {
		t.Helper()
		var n int64
		queryRow(t, superDSN, "select count(*) from media.scratch where id = $1", &n, id)
		return n
	}

	t.Run("DELETE with an unacceptable Accept is 406 and deletes nothing", func(t *testing.T) {
		res := s.Do(t, http.MethodDelete, "/scratch?id=eq.1", "", "Accept", "text/html")
		checkFailure(t, res, failure{status: http.StatusNotAcceptable, code: "PGRST107",
			message: "None of these media types are available: text/html"})
		if n := count(t, 1); n != 1 {
			t.Errorf("row 1 count %d after the refused DELETE, want 1", n)
		}
	})
	t.Run("PATCH with return=minimal still negotiates", func(t *testing.T) {
		res := s.Do(t, http.MethodPatch, "/scratch?id=eq.2", `{"label":"changed"}`, "Accept", "image/png")
		checkFailure(t, res, failure{status: http.StatusNotAcceptable, code: "PGRST107",
			message: "None of these media types are available: image/png"})
		var label string
		queryRow(t, superDSN, "select label from media.scratch where id = 2", &label)
		if label != "two" {
			t.Errorf("label %q after the refused PATCH, want two", label)
		}
	})
	t.Run("a representation takes the handler", func(t *testing.T) {
		res := s.Do(t, http.MethodPost, "/scratch?select=id,label", `{"id":10,"label":"ten"}`,
			"Accept", "text/plain", "Prefer", "return=representation")
		res.ExpectStatus(t, http.StatusCreated)
		expectHeader(t, res, "Content-Type", "text/plain; charset=utf-8")
		if want := "(10,ten)\n"; string(res.Body) != want {
			t.Errorf("body %q, want %q", res.Body, want)
		}
		pgtest.Exec(t, superDSN, "delete from media.scratch where id = 10")
	})
}

// TestPreferenceAppliedOrder: Preference-Applied lists what was applied
// in PostgREST's order, whatever the order of Prefer.
func TestPreferenceAppliedOrder(t *testing.T) {
	s := startMediaServer(t)
	superDSN := mediaDB.superDSN(t)
	t.Run("a read: count, then handling", func(t *testing.T) {
		res := s.Get(t, "/scratch?select=id", "Prefer", "handling=lenient, count=exact")
		res.ExpectStatus(t, http.StatusOK)
		expectHeader(t, res, "Preference-Applied", "count=exact, handling=lenient")
	})
	t.Run("a write: resolution, missing, return, count, handling", func(t *testing.T) {
		res := s.Do(t, http.MethodPost, "/scratch", `{"id":20,"label":"twenty"}`,
			"Prefer", "handling=lenient, count=exact, return=minimal, missing=default, resolution=merge-duplicates")
		res.ExpectStatus(t, http.StatusCreated)
		expectHeader(t, res, "Preference-Applied",
			"resolution=merge-duplicates, missing=default, return=minimal, count=exact, handling=lenient")
		pgtest.Exec(t, superDSN, "delete from media.scratch where id = 20")
	})
}

// TestVaryWhateverTheMediaType: PostgREST v16 sends Vary: Accept,
// Prefer, Range on every successful response, whatever representation
// Accept chose; so does pgrest.
func TestVaryWhateverTheMediaType(t *testing.T) {
	s := startMediaServer(t)
	for _, accept := range []string{"application/json", "text/csv", "text/plain"} {
		res := s.Get(t, "/scratch?id=eq.1", "Accept", accept)
		res.ExpectStatus(t, http.StatusOK)
		if v := res.Header.Values("Vary"); len(v) != 1 || v[0] != "Accept, Prefer, Range" {
			t.Errorf("Accept %s: Vary %q, want Accept, Prefer, Range", accept, v)
		}
	}
}

// queryRow scans the one row of query, run as the superuser at dsn, into
// dest.
func queryRow(t testing.TB, dsn, query string, dest any, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := pgtest.Connect(t, dsn).QueryRow(ctx, query, args...).Scan(dest); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}
