package apirequest

import (
	"mime"
	"testing"
)

// TestSimpleMediaTypeIsWhatParseMediaTypeReturns checks the shortcut
// parseAccept takes for bare media ranges: whenever it applies, the
// standard parser would have returned the range as written and no
// parameters; and it does not apply to what the parser changes or
// refuses.
func TestSimpleMediaTypeIsWhatParseMediaTypeReturns(t *testing.T) {
	for _, part := range []string{
		"application/json", "*/*", "text/csv", "application/*", "application/vnd.pgrst.object+json",
		"application/vnd.pgrst.plan+json", "image/png", "a/b", "x-1/y_2",
	} {
		if !simpleMediaType(part) {
			t.Errorf("%q: not simple", part)
			continue
		}
		typ, params, err := mime.ParseMediaType(part)
		if err != nil || typ != part || len(params) != 0 {
			t.Errorf("%q: ParseMediaType gives %q, %v, %v", part, typ, params, err)
		}
	}
	for _, part := range []string{
		"", "/", "a/", "/b", "a/b/c", "Application/JSON", "application/json;q=0.5", "application/json ",
		"a b/c", "a/b,c", "a/\"b\"", "a/b@c", "é/b", "a/b\x00",
	} {
		if simpleMediaType(part) {
			t.Errorf("%q: simple", part)
		}
	}
}

func FuzzSimpleMediaType(f *testing.F) {
	for _, s := range []string{"application/json", "*/*", "a/b/c", "A/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, part string) {
		if !simpleMediaType(part) {
			return
		}
		typ, params, err := mime.ParseMediaType(part)
		if err != nil || typ != part || len(params) != 0 {
			t.Errorf("%q: ParseMediaType gives %q, %v, %v", part, typ, params, err)
		}
	})
}
