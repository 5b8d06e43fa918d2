package apirequest

import (
	"reflect"
	"testing"
)

// acceptRanges is ParseAccept without its shortcut for one bare range.
func acceptRanges(accept string) []MediaRange {
	items := parseAccept(accept)
	out := make([]MediaRange, len(items))
	for i, it := range items {
		out[i] = MediaRange{Type: it.typ, Params: it.params, Q: it.q}
	}
	return out
}

func checkParseAcceptShortcut(t *testing.T, accept string) {
	t.Helper()
	if got, want := ParseAccept(accept), acceptRanges(accept); !reflect.DeepEqual(got, want) {
		t.Errorf("ParseAccept(%q) = %#v, without the shortcut %#v", accept, got, want)
	}
}

// TestParseAcceptShortcut checks that one bare media range, read without
// the general parser, gives what the general parser gives.
func TestParseAcceptShortcut(t *testing.T) {
	for _, accept := range []string{
		"", " ", "application/json", " application/json ", "Application/JSON", "*/*", "text/csv",
		"application/json;q=0.5", "application/json, text/csv", "application/", "/json", "a/b/c",
		"application/vnd.pgrst.object+json", "application/vnd.pgrst.object+json;nulls=stripped", "text/*",
	} {
		checkParseAcceptShortcut(t, accept)
	}
}

func FuzzParseAcceptShortcut(f *testing.F) {
	for _, seed := range []string{"application/json", "*/*", " text/csv\t", "application/json;q=0"} {
		f.Add(seed)
	}
	f.Fuzz(checkParseAcceptShortcut)
}
