package read

import (
	"strings"
	"testing"
)

// Requests that would reach one of PostgreSQL's own limits are refused
// with a 400 before they reach the database: past those limits the server
// fails with an error of class 54, which the contract answers with 500.
func TestLimitsOfPostgreSQLAreTheClientsError(t *testing.T) {
	s := startServer(t)
	columns := func(n int) string { return strings.TrimSuffix(strings.Repeat("id,", n), ",") }
	nested := func(depth int) string { return strings.Repeat("{", depth) + "a" + strings.Repeat("}", depth) }

	refused := []struct{ name, path, code string }{
		{"a select list of 1,665 columns", "/tasks?select=" + columns(1665), "PGRST100"},
		{"1,665 columns counting the star's", "/tasks?select=*," + columns(1665-10), "PGRST100"},
		{"1,665 columns in an embedded select list", "/projects?select=id,tasks(" + columns(1665) + ")", "PGRST100"},
		{"a text search configuration given as a number", "/articles?select=id&search=fts(0).x", "42704"},
		{"a number as the configuration of plfts", "/articles?select=id&title=plfts(12345).x", "42704"},
		{"an array literal of 7 dimensions", "/tasks?select=id&tags=cs." + nested(7), "PGRST100"},
		{"7 dimensions compared with eq", "/tasks?select=id&tags=eq." + nested(7), "PGRST100"},
		{"7 dimensions in a quantified list", "/tasks?select=id&title=eq(any)." + nested(7), "PGRST100"},
		{"7 dimensions in an in-list element", "/tasks?select=id&tags=in.(%22" + nested(7) + "%22)", "PGRST100"},
	}
	for _, tt := range refused {
		t.Run(tt.name+" is a 400", func(t *testing.T) {
			s.Get(t, tt.path).ExpectError(t, 400, tt.code)
		})
	}

	allowed := []struct{ name, path string }{
		{"a select list of 1,664 columns", "/tasks?select=" + columns(1664)},
		{"an array literal of 6 dimensions", "/tasks?select=id&tags=cs." + nested(6)},
		{"braces inside a quoted element", "/tasks?select=id&tags=cs.{\"" + nested(9) + "\"}"},
		{"braces in a text value", "/tasks?select=id&title=eq." + nested(9)},
		{"a named configuration", "/articles?select=id&search=fts(english).x"},
	}
	for _, tt := range allowed {
		t.Run(tt.name+" is served", func(t *testing.T) {
			s.Get(t, tt.path).ExpectStatus(t, 200)
		})
	}
}
