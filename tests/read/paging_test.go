package read

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// page is a request and the page it answers: status, ids in order and
// Content-Range.
type page struct {
	name         string
	path         string
	headers      []string
	status       int
	ids          []int
	contentRange string
}

func runPages(t *testing.T, s *server, cases []page) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := s.Get(t, c.path, c.headers...)
			res.ExpectStatus(t, c.status)
			if got := ids(t, res); !slices.Equal(got, c.ids) {
				t.Errorf("ids %v, want %v", got, c.ids)
			}
			expectHeader(t, res, "Content-Range", c.contentRange)
		})
	}
}

// seq is the integers lo to hi.
func seq(lo, hi int) []int {
	out := []int{}
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

// countedRange matches a Content-Range with a total, capturing the total.
var countedRange = regexp.MustCompile(`^(\*|[0-9]+-[0-9]+)/([0-9]+)$`)

// rangeTotal is the total of a Content-Range such as 0-9/60.
func rangeTotal(t testing.TB, res *response) int {
	t.Helper()
	m := countedRange.FindStringSubmatch(res.Header.Get("Content-Range"))
	if m == nil {
		t.Fatalf("Content-Range %q has no total", res.Header.Get("Content-Range"))
	}
	n, _ := strconv.Atoi(m[2])
	return n
}

const (
	exact     = "count=exact"
	planned   = "count=planned"
	estimated = "count=estimated"
)

// TestPaging pages through the 60 tasks with limit, offset and the Range
// header, with and without counts, and checks statuses and Content-Range.
func TestPaging(t *testing.T) {
	s := startServer(t)
	const tasks = "/tasks?select=id&order=id"

	t.Run("limit and offset", func(t *testing.T) {
		runPages(t, s, []page{
			{"without limit every row comes back", tasks, nil, 200, seq(1, 60), "0-59/*"},
			{"limit takes the first rows", tasks + "&limit=3", nil, 200, seq(1, 3), "0-2/*"},
			{"offset skips rows", tasks + "&offset=58", nil, 200, seq(59, 60), "58-59/*"},
			{"limit and offset together", tasks + "&limit=2&offset=3", nil, 200, seq(4, 5), "3-4/*"},
			{"limit=0 returns no rows", tasks + "&limit=0", nil, 200, seq(1, 0), "*/*"},
			{"an offset past the end without a count is an empty page", tasks + "&offset=100", nil, 200, seq(1, 0), "*/*"},
			{"an empty result has no range", tasks + "&id=gt.100", nil, 200, seq(1, 0), "*/*"},
			{"a limit that is not a number is ignored", tasks + "&limit=abc", nil, 200, seq(1, 60), "0-59/*"},
			{"a negative offset counts from the first row", tasks + "&offset=-1", nil, 200, seq(1, 60), "0-59/*"},
			{"the last limit wins", tasks + "&limit=5&limit=2", nil, 200, seq(1, 2), "0-1/*"},
		})
	})

	t.Run("the Range header", func(t *testing.T) {
		runPages(t, s, []page{
			{"0-4 gives the first five rows", tasks, []string{"Range", "0-4"}, 200, seq(1, 5), "0-4/*"},
			{"5- gives the rows from the sixth on", tasks, []string{"Range", "5-"}, 200, seq(6, 60), "5-59/*"},
			{"a single row", tasks, []string{"Range", "10-10"}, 200, []int{11}, "10-10/*"},
			{"the header and limit intersect", tasks + "&limit=10", []string{"Range", "5-"}, 200, seq(6, 10), "5-9/*"},
			{"the header and offset intersect", tasks + "&offset=2", []string{"Range", "0-4"}, 200, seq(3, 5), "2-4/*"},
			{"a range with a unit is ignored", tasks, []string{"Range", "items=0-4"}, 200, seq(1, 60), "0-59/*"},
			{"a malformed range is ignored", tasks, []string{"Range", "abc"}, 200, seq(1, 60), "0-59/*"},
			{"limit=0 wins over the header", tasks + "&limit=0", []string{"Range", "0-4"}, 200, seq(1, 0), "*/*"},
			{"a range past the end without a count is an empty page", tasks, []string{"Range", "100-"}, 200, seq(1, 0), "*/*"},
		})
	})

	t.Run("exact counts", func(t *testing.T) {
		runPages(t, s, []page{
			{"every row is 200 with the total", tasks, []string{"Prefer", exact}, 200, seq(1, 60), "0-59/60"},
			{"a limited page is 206", tasks + "&limit=5", []string{"Prefer", exact}, 206, seq(1, 5), "0-4/60"},
			{"a Range page is 206", tasks, []string{"Range", "0-4", "Prefer", exact}, 206, seq(1, 5), "0-4/60"},
			{"the total counts the filtered rows", tasks + "&project_id=eq.1", []string{"Prefer", exact}, 200, seq(1, 6), "0-5/6"},
			{"a filtered page is 206", tasks + "&project_id=eq.1&offset=4", []string{"Prefer", exact}, 206, seq(5, 6), "4-5/6"},
			{"an empty result is */0 and 200", tasks + "&id=gt.100", []string{"Prefer", exact}, 200, seq(1, 0), "*/0"},
			{"limit=0 is */60 and 206", tasks + "&limit=0", []string{"Prefer", exact}, 206, seq(1, 0), "*/60"},
			{"an offset at the end is an empty 206", tasks + "&offset=60", []string{"Prefer", exact}, 206, seq(1, 0), "*/60"},
		})
	})

	t.Run("an exact count is the database's count of the filtered rows", func(t *testing.T) {
		want := sqlRows(t, "select count(*) as n from api.tasks where tags && '{ops,ux}'")[0]["n"].(float64)
		res := s.Get(t, tasks+"&tags=ov.%7Bops,ux%7D&limit=1", "Prefer", exact)
		res.ExpectStatus(t, http.StatusPartialContent)
		if got := rangeTotal(t, res); got != int(want) {
			t.Errorf("total %d, want %v", got, want)
		}
	})

	t.Run("a planned count is the planner's positive estimate", func(t *testing.T) {
		res := s.Get(t, tasks+"&limit=5", "Prefer", planned)
		res.ExpectStatus(t, http.StatusPartialContent)
		if got := ids(t, res); !slices.Equal(got, seq(1, 5)) {
			t.Errorf("ids %v", got)
		}
		if m := countedRange.FindStringSubmatch(res.Header.Get("Content-Range")); m == nil || m[1] != "0-4" || rangeTotal(t, res) <= 0 {
			t.Errorf("Content-Range %q, want 0-4/<positive>", res.Header.Get("Content-Range"))
		}
	})

	t.Run("unsatisfiable ranges", func(t *testing.T) {
		for _, c := range []struct {
			name    string
			path    string
			headers []string
			details string
		}{
			{"an offset past the counted rows", tasks + "&offset=100", []string{"Prefer", exact},
				"An offset of 100 was requested, but there are only 60 rows."},
			{"an offset one past the counted rows", tasks + "&offset=61", []string{"Prefer", exact},
				"An offset of 61 was requested, but there are only 60 rows."},
			{"a negative limit", tasks + "&limit=-1", nil,
				"Limit should be greater than or equal to zero."},
			{"a Range whose end is before its start", tasks, []string{"Range", "5-3"},
				"The lower boundary must be lower than or equal to the upper boundary in the Range header."},
			{"a Range that misses the limited rows", tasks + "&limit=2&offset=3", []string{"Range", "5-"},
				"Limit should be greater than or equal to zero."},
			{"a Range before the offset", tasks + "&offset=58", []string{"Range", "0-4"},
				"Limit should be greater than or equal to zero."},
			{"a Range past the counted rows", tasks, []string{"Range", "100-", "Prefer", exact},
				"An offset of 100 was requested, but there are only 60 rows."},
		} {
			t.Run(c.name, func(t *testing.T) {
				checkFailure(t, s.Get(t, c.path, c.headers...), failure{status: http.StatusRequestedRangeNotSatisfiable,
					code: "PGRST103", message: "Requested range not satisfiable", details: c.details})
			})
		}
	})

	t.Run("HEAD", func(t *testing.T) {
		for _, c := range []struct {
			name         string
			path         string
			headers      []string
			status       int
			contentRange string
		}{
			{"has GET's headers and no body", tasks + "&limit=5", nil, 200, "0-4/*"},
			{"ignores the Range header", tasks, []string{"Range", "0-4"}, 200, "0-59/*"},
			{"counts with Prefer: count=exact", tasks, []string{"Prefer", exact}, 200, "0-59/60"},
			{"is 206 for a counted page", tasks + "&limit=5", []string{"Prefer", exact}, 206, "0-4/60"},
			{"is */0 for a counted empty result", tasks + "&id=gt.100", []string{"Prefer", exact}, 200, "*/0"},
		} {
			t.Run(c.name, func(t *testing.T) {
				res := s.Head(t, c.path, c.headers...)
				res.ExpectStatus(t, c.status)
				if len(res.Body) != 0 {
					t.Errorf("HEAD has a body: %q", res.Body)
				}
				expectHeader(t, res, "Content-Range", c.contentRange)
				expectHeader(t, res, "Content-Type", "application/json; charset=utf-8")
			})
		}
		t.Run("past the counted rows is 416 with Proxy-Status", func(t *testing.T) {
			res := s.Head(t, tasks+"&offset=100", "Prefer", exact)
			res.ExpectError(t, http.StatusRequestedRangeNotSatisfiable, "PGRST103")
		})
	})
}

// TestPagingWithMaxRows caps every read at db_max_rows 10.
func TestPagingWithMaxRows(t *testing.T) {
	s := startServer(t, "db_max_rows 10")
	const tasks = "/tasks?select=id&order=id"

	runPages(t, s, []page{
		{"a read without limit stops at the cap", tasks, nil, 200, seq(1, 10), "0-9/*"},
		{"a larger limit stops at the cap", tasks + "&limit=20", nil, 200, seq(1, 10), "0-9/*"},
		{"a smaller limit is kept", tasks + "&limit=5", nil, 200, seq(1, 5), "0-4/*"},
		{"the cap counts from the offset", tasks + "&offset=20", nil, 200, seq(21, 30), "20-29/*"},
		{"fewer rows than the cap after the offset", tasks + "&offset=55", nil, 200, seq(56, 60), "55-59/*"},
		{"an open Range stops at the cap", tasks, []string{"Range", "5-"}, 200, seq(6, 15), "5-14/*"},
		{"a larger Range stops at the cap", tasks, []string{"Range", "0-14"}, 200, seq(1, 10), "0-9/*"},
		{"an exact count counts every row", tasks, []string{"Prefer", exact}, 206, seq(1, 10), "0-9/60"},
		{"an exact count below the cap is 200", tasks + "&project_id=eq.1", []string{"Prefer", exact}, 200, seq(1, 6), "0-5/6"},
		{"an estimated count below the cap is exact", tasks + "&project_id=eq.1", []string{"Prefer", estimated}, 200, seq(1, 6), "0-5/6"},
		{"an estimated count of nothing is exact", tasks + "&id=gt.100", []string{"Prefer", estimated}, 200, seq(1, 0), "*/0"},
		{"an estimated count at the cap is exact", tasks + "&id=lte.10", []string{"Prefer", estimated}, 200, seq(1, 10), "0-9/10"},
	})

	for _, pref := range []string{estimated, planned} {
		t.Run("a "+pref[len("count="):]+" count above the cap is the planner's estimate", func(t *testing.T) {
			res := s.Get(t, tasks, "Prefer", pref)
			res.ExpectStatus(t, http.StatusPartialContent)
			if got := ids(t, res); !slices.Equal(got, seq(1, 10)) {
				t.Errorf("ids %v", got)
			}
			if m := countedRange.FindStringSubmatch(res.Header.Get("Content-Range")); m == nil || m[1] != "0-9" || rangeTotal(t, res) <= 10 {
				t.Errorf("Content-Range %q, want 0-9/<above 10>", res.Header.Get("Content-Range"))
			}
		})
	}

	t.Run("HEAD with an exact count", func(t *testing.T) {
		res := s.Head(t, tasks, "Prefer", exact)
		res.ExpectStatus(t, http.StatusPartialContent)
		if len(res.Body) != 0 {
			t.Errorf("HEAD has a body: %q", res.Body)
		}
		expectHeader(t, res, "Content-Range", "0-9/60")
	})
}
