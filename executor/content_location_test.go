package executor

import (
	"sort"
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
)

// contentLocationBySort is Content-Location as PostgREST makes it: the
// non-empty parameters sorted by name, stably.
func contentLocationBySort(name, rawQuery string) string {
	loc := "/" + name
	if rawQuery == "" {
		return loc
	}
	params := strings.FieldsFunc(rawQuery, func(r rune) bool { return r == '&' })
	sort.SliceStable(params, func(i, j int) bool {
		ki, _, _ := strings.Cut(params[i], "=")
		kj, _, _ := strings.Cut(params[j], "=")
		return ki < kj
	})
	return loc + "?" + strings.Join(params, "&")
}

var contentLocationQueries = []string{
	"", "a=1", "id=eq.42", "order=id&limit=25", "limit=25&order=id", "b=1&a=2", "a=2&a=1",
	"a=1&&b=2", "&a=1", "a=1&", "&", "&&", "a&b", "b&a", "=x&a=1", "a=1&=x", "a=&a", "select=id,name&id=lt.26&order=id",
}

func TestContentLocationSortsTheQuery(t *testing.T) {
	for _, q := range contentLocationQueries {
		if got, want := contentLocation(&apirequest.Request{Name: "items", RawQuery: q}), contentLocationBySort("items", q); got != want {
			t.Errorf("%q: %q, want %q", q, got, want)
		}
	}
}

func FuzzContentLocation(f *testing.F) {
	for _, q := range contentLocationQueries {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if got, want := contentLocation(&apirequest.Request{Name: "items", RawQuery: q}), contentLocationBySort("items", q); got != want {
			t.Errorf("%q: %q, want %q", q, got, want)
		}
	})
}
