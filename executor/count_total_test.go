package executor

import "testing"

// TestCountTotal: the total of a planned or estimated count as PostgREST
// v16 gives it (RelatedQueriesSpec "works with count=estimated",
// QueryLimitedSpec "count=estimated").
func TestCountTotal(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	for _, c := range []struct {
		name    string
		count   string
		exact   *int64
		planned int64
		maxRows int64
		want    int64
	}{
		{"planned is the estimate, even below the rows", "planned", nil, 2, 0, 2},
		{"estimated without db_max_rows takes a larger estimate", "estimated", n(4), 5, 0, 5},
		{"estimated without db_max_rows keeps a larger count", "estimated", n(4), 1, 0, 4},
		{"estimated within db_max_rows is the count", "estimated", n(2), 2019, 2, 2},
		{"estimated past db_max_rows takes a larger estimate", "estimated", n(3), 2019, 2, 2019},
		{"estimated past db_max_rows keeps a larger count", "estimated", n(3), 1, 2, 3},
	} {
		if got := countTotal(c.count, c.exact, c.planned, c.maxRows); got == nil || *got != c.want {
			t.Errorf("%s: got %v, want %d", c.name, got, c.want)
		}
	}
}
