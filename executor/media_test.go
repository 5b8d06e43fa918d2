package executor

import (
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// TestNegotiateMedia checks the order PostgREST tries handlers in: vendor
// types, the target's own handlers (its "*/*" first, and only with the
// relation's shape), every relation's handlers, then the builtins.
func TestNegotiateMedia(t *testing.T) {
	lines := schemacache.QualifiedName{Schema: "api", Name: "lines"}
	notes := schemacache.QualifiedName{Schema: "api", Name: "notes"}
	page := schemacache.QualifiedName{Schema: "api", Name: "page"}
	twkb := &schemacache.MediaHandler{Function: schemacache.QualifiedName{Schema: "api", Name: "twkb_agg"}, Aggregate: true,
		Target: lines, MediaType: "application/vnd.twkb", Binary: true}
	linesCSV := &schemacache.MediaHandler{Function: schemacache.QualifiedName{Schema: "api", Name: "csv_agg"}, Aggregate: true,
		Target: lines, MediaType: "text/csv"}
	plain := &schemacache.MediaHandler{Function: schemacache.QualifiedName{Schema: "api", Name: "plain_agg"}, Aggregate: true,
		MediaType: "text/plain"}
	anyNotes := &schemacache.MediaHandler{Function: schemacache.QualifiedName{Schema: "api", Name: "notes_any"}, Aggregate: true,
		Target: notes, MediaType: "*/*"}
	html := &schemacache.MediaHandler{Function: page, Target: page, MediaType: "text/html"}
	withPostGIS := schemacache.Build(&schemacache.Catalog{Schemas: []string{"api"}, PostGISSchema: "extensions",
		MediaHandlers: []*schemacache.MediaHandler{twkb, linesCSV, plain, anyNotes, html}})
	without := schemacache.Build(&schemacache.Catalog{Schemas: []string{"api"}})

	rel := func(n schemacache.QualifiedName, defaultSelect bool) mediaTarget {
		return mediaTarget{name: n, defaultSelect: defaultSelect}
	}
	tests := []struct {
		name    string
		cache   *schemacache.Cache
		accept  string
		target  mediaTarget
		media   apirequest.MediaType
		handler *schemacache.MediaHandler
		strip   bool
		refused bool
	}{
		{"no Accept is JSON", withPostGIS, "", rel(lines, true), apirequest.MediaJSON, nil, false, false},
		{"a relation's handler", withPostGIS, "application/vnd.twkb", rel(lines, true), apirequest.MediaHandler, twkb, false, false},
		{"not with another select", withPostGIS, "application/vnd.twkb", rel(lines, false), 0, nil, false, true},
		{"not for another relation", withPostGIS, "application/vnd.twkb", rel(schemacache.QualifiedName{Schema: "api", Name: "other"}, true), 0, nil, false, true},
		{"a relation's CSV overrides the builtin", withPostGIS, "text/csv", rel(lines, true), apirequest.MediaHandler, linesCSV, false, false},
		{"others keep the builtin CSV", withPostGIS, "text/csv", rel(notes, false), apirequest.MediaCSV, nil, false, false},
		{"anyelement serves every relation", withPostGIS, "text/plain", rel(notes, false), apirequest.MediaHandler, plain, false, false},
		{"*/* answers anything", withPostGIS, "x/y", rel(notes, true), apirequest.MediaHandler, anyNotes, false, false},
		{"*/* answers JSON too", withPostGIS, "application/json", rel(notes, true), apirequest.MediaHandler, anyNotes, false, false},
		{"vendor types win over */*", withPostGIS, "application/vnd.pgrst.object", rel(notes, true), apirequest.MediaSingleObject, nil, false, false},
		{"the stripped array", withPostGIS, "application/vnd.pgrst.array+json;nulls=stripped", rel(notes, true), apirequest.MediaJSON, nil, true, false},
		{"the plain array is JSON, which */* overrides", withPostGIS, "application/vnd.pgrst.array", rel(notes, true), apirequest.MediaHandler, anyNotes, false, false},
		{"GeoJSON with PostGIS", withPostGIS, "application/geo+json", rel(lines, false), apirequest.MediaGeoJSON, nil, false, false},
		{"no GeoJSON without it", without, "application/geo+json", rel(lines, false), 0, nil, false, true},
		{"quality before order", withPostGIS, "text/csv;q=0.2, text/plain", rel(notes, false), apirequest.MediaHandler, plain, false, false},
		{"a function's own type", withPostGIS, "text/html", mediaTarget{name: page, defaultSelect: true, scalar: true}, apirequest.MediaHandler, html, false, false},
		{"a scalar takes no relation handler", withPostGIS, "text/plain", mediaTarget{name: page, defaultSelect: true, scalar: true}, 0, nil, false, true},
		{"a scalar takes no CSV", withPostGIS, "text/csv", mediaTarget{name: page, defaultSelect: true, scalar: true}, 0, nil, false, true},
		{"q=0 refuses", withPostGIS, "application/json;q=0", rel(notes, false), 0, nil, false, true},
		{"wildcards other than */* match nothing", withPostGIS, "text/*", rel(notes, false), 0, nil, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, aerr := negotiateMedia(tt.accept, tt.cache, tt.target)
			if tt.refused {
				if aerr == nil || aerr.Code != "PGRST107" || aerr.Status != 406 {
					t.Fatalf("got %+v, %v; want 406 PGRST107", rep, aerr)
				}
				return
			}
			if aerr != nil {
				t.Fatalf("refused: %v", aerr)
			}
			if rep.Media != tt.media || rep.Handler != tt.handler || rep.StripNulls != tt.strip {
				t.Errorf("got %+v, want media %d handler %v strip %v", rep, tt.media, tt.handler, tt.strip)
			}
		})
	}
}

// TestHandlerContentType checks the Content-Type of each kind of handler,
// as PostgREST writes it.
func TestHandlerContentType(t *testing.T) {
	for mt, want := range map[string]string{
		"*/*":                      "application/octet-stream",
		"application/octet-stream": "application/octet-stream",
		"text/plain":               "text/plain; charset=utf-8",
		"text/xml":                 "text/xml; charset=utf-8",
		"text/csv":                 "text/csv; charset=utf-8",
		"application/geo+json":     "application/geo+json; charset=utf-8",
		"text/html":                "text/html",
		"image/png":                "image/png",
	} {
		rep := apirequest.Representation{Media: apirequest.MediaHandler, Handler: &schemacache.MediaHandler{MediaType: mt}}
		if got := rep.ContentType(); got != want {
			t.Errorf("%s: Content-Type %q, want %q", mt, got, want)
		}
	}
}

// FuzzNegotiateMedia: any Accept header is a representation or 406
// PGRST107, never a panic, and a handler is only ever one of the cache's.
func FuzzNegotiateMedia(f *testing.F) {
	for _, s := range []string{"", "*/*", "text/html;q=0.5, image/png", "application/vnd.pgrst.object;nulls=stripped",
		";;,,", "a/b;q=NaN", "text/*;q=0", "x/y; q=1e999, */*;q=-1", "\x00/\xff"} {
		f.Add(s)
	}
	h := &schemacache.MediaHandler{Function: schemacache.QualifiedName{Schema: "api", Name: "agg"}, Aggregate: true, MediaType: "text/html"}
	cache := schemacache.Build(&schemacache.Catalog{Schemas: []string{"api"}, MediaHandlers: []*schemacache.MediaHandler{h}})
	f.Fuzz(func(t *testing.T, accept string) {
		rep, aerr := negotiateMedia(accept, cache, mediaTarget{name: schemacache.QualifiedName{Schema: "api", Name: "t"}, defaultSelect: true})
		if aerr != nil {
			if aerr.Code != "PGRST107" || aerr.Status != 406 {
				t.Fatalf("%q: %v", accept, aerr)
			}
			return
		}
		if rep.Media == apirequest.MediaHandler && rep.Handler != h {
			t.Fatalf("%q: handler %+v", accept, rep.Handler)
		}
	})
}
