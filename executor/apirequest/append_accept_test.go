package apirequest

import (
	"reflect"
	"testing"
)

// TestAppendAcceptIsParseAccept holds AppendAccept to ParseAccept's
// ranges after what dst held, and checks that the one-range header most
// clients send needs no allocation when the caller has room.
func TestAppendAcceptIsParseAccept(t *testing.T) {
	for _, accept := range []string{"", "application/json", " text/csv ", "*/*", "application/json, text/csv;q=0.5",
		"application/vnd.pgrst.object+json;nulls=stripped", "text/*;q=0.1, */*;q=0", "bad"} {
		prefix := MediaRange{Type: "x/y", Q: 0.5}
		got := AppendAccept([]MediaRange{prefix}, accept)
		want := append([]MediaRange{prefix}, ParseAccept(accept)...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v, want %+v", accept, got, want)
		}
	}
	read := 0
	if n := testing.AllocsPerRun(100, func() {
		var room [1]MediaRange
		read = len(AppendAccept(room[:0], "application/json"))
	}); n != 0 || read != 1 {
		t.Errorf("%v allocations for %d ranges, want none for 1", n, read)
	}
}
