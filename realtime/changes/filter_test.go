package changes

import (
	"reflect"
	"testing"
)

func TestParseFilter(t *testing.T) {
	cases := []struct {
		in   string
		want []filter
		err  string
	}{
		{in: "", want: nil},
		{in: "   ", want: nil},
		{in: "id=eq.5", want: []filter{{Column: "id", Op: "eq", Values: []string{"5"}}}},
		{in: "body=neq.a.b", want: []filter{{Column: "body", Op: "neq", Values: []string{"a.b"}}}},
		{in: "id=gt.0,id=lt.100", want: []filter{{Column: "id", Op: "gt", Values: []string{"0"}}, {Column: "id", Op: "lt", Values: []string{"100"}}}},
		{in: `name=in.(a,"b,c",d)`, want: []filter{{Column: "name", Op: "in", Values: []string{"a", "b,c", "d"}}}},
		{in: `name=eq."x\"y"`, want: []filter{{Column: "name", Op: "eq", Values: []string{`x"y`}}}},
		// Realtime's texts (Subscriptions.parse_subscription_params and its tests).
		{in: "subject=foo.hey", err: "Error parsing `filter` params: [\"foo\", \"hey\"]"},
		{in: "undefined", err: "Error parsing `filter` params: [\"undefined\"]"},
		{in: "id=eq", err: "Error parsing `filter` params: [\"eq\"]"},
		{in: "id=in.1,2", err: "Error parsing `filter` params: `in` filter value must be wrapped by parentheses"},
		{in: "id=eq.1,,id=eq.2", err: "Error parsing `filter` params: filter must not contain empty segments (check for extra commas)"},
	}
	for _, c := range cases {
		got, err := parseFilter(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("parseFilter(%q) error = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseFilter(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	fs, _ := parseFilter("subject=eq.hey,id=in.(1,2)")
	got := describe("*", "public", "test", fs)
	want := `[event: *, schema: public, table: test, filters: [{"subject", "eq", "hey", false}, {"id", "in", "{1,2}", false}], select: nil]`
	if got != want {
		t.Errorf("describe = %s\nwant %s", got, want)
	}
}

func TestHolds(t *testing.T) {
	num := func(s string) jsonValue { return jsonValue{raw: []byte(s)} }
	f := func(op string, canon ...string) filter {
		fl := filter{Column: "n", Op: op}
		for _, c := range canon {
			fl.canon = append(fl.canon, num(c))
		}
		return fl
	}
	row := map[string]jsonValue{"n": num("10"), "s": num(`"b"`), "z": jsonNull}
	cases := []struct {
		filters []filter
		want    bool
	}{
		{[]filter{f("eq", "10")}, true},
		{[]filter{f("eq", "10.0")}, true},
		{[]filter{f("neq", "10")}, false},
		{[]filter{f("lt", "11")}, true},
		{[]filter{f("lte", "10")}, true},
		{[]filter{f("gt", "9.5")}, true},
		{[]filter{f("gte", "11")}, false},
		{[]filter{f("in", "1", "10")}, true},
		{[]filter{f("in", "1", "2")}, false},
		{[]filter{{Column: "s", Op: "lt", canon: []jsonValue{num(`"c"`)}}}, true},
		// A null value passes when every condition is on a null
		// (Realtime's null_passes_filters), not when one holds and
		// another is on a null.
		{[]filter{{Column: "z", Op: "eq", canon: []jsonValue{num("1")}}}, true},
		{[]filter{f("eq", "10"), {Column: "z", Op: "eq", canon: []jsonValue{num("1")}}}, false},
	}
	for i, c := range cases {
		if got := holds(c.filters, row); got != c.want {
			t.Errorf("case %d: holds = %v, want %v", i, got, c.want)
		}
	}
}
