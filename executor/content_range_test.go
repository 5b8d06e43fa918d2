package executor

import (
	"strconv"
	"testing"
)

func TestContentRange(t *testing.T) {
	five := int64(5)
	for _, c := range []struct {
		offset, pageTotal int64
		total             *int64
		want              string
	}{
		{0, 0, nil, "*/*"},
		{0, 0, &five, "*/5"},
		{3, 0, nil, "*/*"},
		{0, 1, nil, "0-0/*"},
		{0, 256, nil, "0-255/*"},
		{0, 257, nil, "0-256/*"},
		{10, 5, nil, "10-14/*"},
		{0, 5, &five, "0-4/5"},
	} {
		if got := contentRange(c.offset, c.pageTotal, c.total); got != c.want {
			t.Errorf("contentRange(%d, %d, %v) = %q, want %q", c.offset, c.pageTotal, c.total, got, c.want)
		}
	}
	for n := int64(1); n <= int64(len(firstPageRanges)); n++ {
		if got, want := contentRange(0, n, nil), "0-"+strconv.FormatInt(n-1, 10)+"/*"; got != want {
			t.Fatalf("first page of %d rows: %q, want %q", n, got, want)
		}
	}
}
