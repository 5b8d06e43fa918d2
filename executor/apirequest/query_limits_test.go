package apirequest

import (
	"fmt"
	"strings"
	"testing"
)

// embedChain is a select of depth embeds, each in the one before;
// innermost is the deepest level's select.
func embedChain(depth int, relation, innermost string) string {
	s := innermost
	for range depth {
		s = "id," + relation + "(" + s + ")"
	}
	return s
}

// logicChain is an or=... of depth and/or trees, each in the one before.
func logicChain(depth int) string {
	s := "a.eq.1"
	for range depth - 1 {
		s = "and(b.eq.2," + s + ")"
	}
	return "or=(" + s + ")"
}

// joined is n items made by item, joined by sep.
func joined(n int, sep string, item func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item(i)
	}
	return strings.Join(parts, sep)
}

func TestQueryLimits(t *testing.T) {
	column := func(int) string { return "id" }
	embed := func(i int) string { return fmt.Sprintf("r%d:reviews(id)", i) }
	filter := func(i int) string { return fmt.Sprintf("id=neq.%d", i) }
	logicFilter := func(i int) string { return fmt.Sprintf("id.neq.%d", i) }
	for _, tt := range []struct {
		name, query string
		details     string // "" when the query is within the limits
	}{
		{"16 levels of embeds are allowed", "select=" + embedChain(16, "items", "id"), ""},
		{"17 levels of embeds are refused", "select=" + embedChain(17, "items", "id"),
			"The select parameter has embedded resources nested deeper than 16 levels."},
		{"17 levels read by the grammar are refused alike", "select=" + embedChain(17, "items", `"quoted id"`),
			"The select parameter has embedded resources nested deeper than 16 levels."},
		{"17 levels of spreads are refused", "select=" + strings.Repeat("...items(", 17) + "id" + strings.Repeat(")", 17),
			"The select parameter has embedded resources nested deeper than 16 levels."},
		{"100,000 levels are refused where the 17th opens", "select=" + strings.Repeat("a(", 100000) + strings.Repeat(")", 100000),
			"The select parameter has embedded resources nested deeper than 16 levels."},
		{"the depth is refused before a syntax error deeper in", "select=" + strings.Repeat("a(", 17) + "!!",
			"The select parameter has embedded resources nested deeper than 16 levels."},
		{"an aggregate's parentheses are not a level", "select=" + embedChain(16, "items", "id.sum()"), ""},
		{"100 embeds are allowed", "select=id," + joined(100, ",", embed), ""},
		{"101 embeds are refused", "select=id," + joined(101, ",", embed),
			"The select parameter has 101 embedded resources; the limit is 100."},
		{"embeds count at every level", "select=id," + joined(50, ",", embed) + ",items(" + joined(50, ",", embed) + ")",
			"The select parameter has 101 embedded resources; the limit is 100."},
		{"2000 select items are allowed", "select=" + joined(2000, ",", column), ""},
		{"2001 select items are refused", "select=" + joined(2001, ",", column),
			"The select parameter has 2001 select items; the limit is 2000."},
		{"select items count at every level", "select=" + joined(1000, ",", column) + ",items(" + joined(1000, ",", column) + ")",
			"The select parameter has 2001 select items; the limit is 2000."},
		{"32 levels of and/or are allowed", logicChain(32), ""},
		{"33 levels of and/or are refused", logicChain(33),
			"An and/or parameter has and/or nested deeper than 32 levels."},
		{"a negated and/or of an embed counts its own tree", "items.not.or=(" + strings.TrimPrefix(logicChain(32), "or=("), ""},
		{"100,000 levels of and/or are refused", "or=(" + strings.Repeat("and(", 100000) + "a.eq.1" + strings.Repeat(")", 100001),
			"An and/or parameter has and/or nested deeper than 32 levels."},
		{"1000 filters are allowed", joined(1000, "&", filter), ""},
		{"1001 filters are refused", joined(1001, "&", filter),
			"The query string has 1001 filters, counting those in and/or; the limit is 1000."},
		{"filters in and/or count", joined(500, "&", filter) + "&or=(" + joined(501, ",", logicFilter) + ")",
			"The query string has 1001 filters, counting those in and/or; the limit is 1000."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, fast := range []bool{true, false} {
				_, err := parseQuery(&queryAlloc{}, tt.query, false, fast)
				switch {
				case tt.details == "" && err != nil:
					t.Fatalf("fast paths %v: refused: %+v", fast, err)
				case tt.details == "":
				case err == nil:
					t.Fatalf("fast paths %v: accepted", fast)
				case err.Status != 400 || err.Code != "PGRST191" || err.Details != tt.details:
					t.Fatalf("fast paths %v: got %d %s %v, want 400 PGRST191 %q", fast, err.Status, err.Code, err.Details, tt.details)
				}
			}
		})
	}
}

func TestFunctionArgumentsAreNotFilters(t *testing.T) {
	q, err := ParseRPCQuery(joined(1001, "&", func(i int) string { return fmt.Sprintf("a%d=%d", i, i) }))
	if err != nil {
		t.Fatalf("refused: %+v", err)
	}
	if len(q.RPCParams) != 1001 {
		t.Errorf("%d arguments, want 1001", len(q.RPCParams))
	}
}
