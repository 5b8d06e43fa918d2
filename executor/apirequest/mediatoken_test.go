package apirequest

import (
	"reflect"
	"testing"
)

// TestTokenizeMediaType: the examples of PostgREST's tokenizeMediaType,
// and what it ignores.
func TestTokenizeMediaType(t *testing.T) {
	for _, c := range []struct {
		in     string
		typ    string
		params map[string]string
		ok     bool
	}{
		{`application/vnd.pgrst.plan+json;for="text/csv"`, "application/vnd.pgrst.plan+json", map[string]string{"for": "text/csv"}, true},
		{"*/*", "*/*", map[string]string{}, true},
		{`application/vnd.pgrst.plan;wat="application/json;text/csv"`, "application/vnd.pgrst.plan", map[string]string{"wat": "application/json;text/csv"}, true},
		{`application/vnd.pgrst.plan+text; for="text/xml"; options=analyze|verbose`, "application/vnd.pgrst.plan+text",
			map[string]string{"for": "text/xml", "options": "analyze|verbose"}, true},
		{`application/vnd.pgrst.plan ; FOR = "text/xml" ; options=analyze`, "application/vnd.pgrst.plan",
			map[string]string{"for": "text/xml", "options": "analyze"}, true},
		{"application/json; $$ unrecognized-chars=ignored $$", "application/json", map[string]string{}, true},
		{"ApplicatIon/vnd.PgRsT.object+json", "application/vnd.pgrst.object+json", map[string]string{}, true},
		{"undefined", "", nil, false},
		{"application/", "", nil, false},
	} {
		typ, params, ok := tokenizeMediaType(c.in)
		if typ != c.typ || ok != c.ok || !reflect.DeepEqual(params, c.params) {
			t.Errorf("%q: %q %v %v, want %q %v %v", c.in, typ, params, ok, c.typ, c.params, c.ok)
		}
	}
}
