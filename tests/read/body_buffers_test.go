package read

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
)

// TestReadBodiesShareNoBytes: a read's body is read into a buffer that
// the next read reuses once the body is written. Long, short and empty
// bodies, in turn and at the same time on two connections, must each be
// exactly their own: the ids asked for, valid JSON, a Content-Length of
// their size and the same bytes every time, with nothing left over of a
// longer body read before.
func TestReadBodiesShareNoBytes(t *testing.T) {
	s := startServer(t, "db_uri "+streamDB.appDSN(t), "db_schemas api", "db_pool 2")
	cases := []struct {
		path string
		ids  int
	}{
		{"/big?select=id,note&order=id&limit=400", 400},
		{"/big?select=id&id=eq.7", 1},
		{"/big?select=id,name&order=id.desc&limit=60", 60},
		{"/big?select=id&id=lt.0", 0},
		{"/big?select=id,name,note&id=lt.4&order=id", 3},
	}
	check := func(path string, ids int, want []byte) ([]byte, error) {
		res, err := s.Try(nil, http.MethodGet, path, "")
		if err != nil {
			return nil, err
		}
		if res.Status != http.StatusOK {
			return nil, fmt.Errorf("%s: status %d, body %.200s", path, res.Status, res.Body)
		}
		if n, _ := strconv.Atoi(res.Header.Get("Content-Length")); n != len(res.Body) {
			return nil, fmt.Errorf("%s: Content-Length %q for %d bytes", path, res.Header.Get("Content-Length"), len(res.Body))
		}
		var rs []map[string]any
		if err := json.Unmarshal(res.Body, &rs); err != nil || len(rs) != ids {
			return nil, fmt.Errorf("%s: %d rows (%v), want %d; body %.300q", path, len(rs), err, ids, res.Body)
		}
		if want != nil && !bytes.Equal(res.Body, want) {
			return nil, fmt.Errorf("%s: body changed:\n%.300q\nfirst %.300q", path, res.Body, want)
		}
		return res.Body, nil
	}
	first := make([][]byte, len(cases))
	for i, c := range cases {
		body, err := check(c.path, c.ids, nil)
		if err != nil {
			t.Fatal(err)
		}
		first[i] = body
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Go(func() {
			for round := range 20 {
				c := (g + round) % len(cases)
				if _, err := check(cases[c].path, cases[c].ids, first[c]); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
