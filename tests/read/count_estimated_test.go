package read

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// TestCountEstimatedWithoutMaxRows mirrors PostgREST's "works with
// count=estimated" (EmbedInnerJoinSpec, without db-max-rows): with no cap
// the total is the larger of the exact count and the planner's estimate,
// so a table whose estimate exceeds its rows answers 206 Partial Content,
// on HEAD (postgrest-js's select with head: true) as on GET.
func TestCountEstimatedWithoutMaxRows(t *testing.T) {
	// The planner guesses a never-analyzed table's rows from its size,
	// well above the few rows of api.clients.
	if n := pgresttest.SQLInt(t, db.SuperDSN, "select reltuples::bigint from pg_class where oid = 'api.clients'::regclass"); n >= 0 {
		t.Fatalf("api.clients has been analyzed (reltuples %d): the test needs the planner to guess", n)
	}
	rows := int(pgresttest.SQLInt(t, db.SuperDSN, "select count(*) from api.clients"))
	s := startServer(t)
	for _, method := range []string{http.MethodHead, http.MethodGet} {
		t.Run(method+" takes the planner's estimate above the exact count: 206", func(t *testing.T) {
			res := s.Do(t, method, "/clients?select=id", "", "Prefer", "count=estimated")
			res.ExpectStatus(t, http.StatusPartialContent)
			m := countedRange.FindStringSubmatch(res.Header.Get("Content-Range"))
			if want := fmt.Sprintf("0-%d", rows-1); m == nil || m[1] != want || rangeTotal(t, res) <= rows {
				t.Errorf("Content-Range %q, want %s/<above %d>", res.Header.Get("Content-Range"), want, rows)
			}
			if got := res.Header.Get("Preference-Applied"); got != "count=estimated" {
				t.Errorf("Preference-Applied %q", got)
			}
		})
	}
	t.Run("an exact count stays exact", func(t *testing.T) {
		res := s.Head(t, "/clients?select=id", "Prefer", "count=exact")
		res.ExpectStatus(t, http.StatusOK)
		if got, want := res.Header.Get("Content-Range"), fmt.Sprintf("0-%d/%d", rows-1, rows); got != want {
			t.Errorf("Content-Range %q, want %q", got, want)
		}
	})
}
