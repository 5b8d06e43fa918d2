package apirequest

import (
	"reflect"
	"testing"
)

func fld(name string, path ...JSONStep) Field { return Field{Name: name, JSONPath: path} }

func key(arrow, k string) JSONStep { return JSONStep{Arrow: arrow, Key: k} }

func index(arrow, k string) JSONStep { return JSONStep{Arrow: arrow, Key: k, IsIndex: true} }

func column(name string, path ...JSONStep) SelectItem {
	return SelectItem{Kind: SelectColumn, Field: fld(name, path...)}
}

var star = SelectItem{Kind: SelectStar, Field: fld("*")}

func mustParse(t *testing.T, query string) *Query {
	t.Helper()
	q, err := ParseQuery(query)
	if err != nil {
		t.Fatalf("ParseQuery(%q): %s: %s | %v", query, err.Code, err.Message, err.Details)
	}
	return q
}

func check(t *testing.T, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("\n got %#v\nwant %#v", got, want)
	}
}

func TestParseSelect(t *testing.T) {
	embed := func(rel string, children ...SelectItem) SelectItem {
		if children == nil {
			children = []SelectItem{}
		}
		return SelectItem{Kind: SelectEmbed, Relation: rel, Children: children}
	}
	with := func(it SelectItem, f func(*SelectItem)) SelectItem { f(&it); return it }
	tests := []struct {
		name, query string
		want        []SelectItem
	}{
		{"no select parameter selects every column", "", []SelectItem{star}},
		{"an empty select selects nothing", "select=", []SelectItem{}},
		{"a first select without = hides a later one", "select&select=id", []SelectItem{star}},
		{"only the first select counts", "select=a&select=b", []SelectItem{column("a")}},
		{"columns are listed in order", "select=id,name", []SelectItem{column("id"), column("name")}},
		{"spaces around items are dropped", "select=+id+,%20name%09", []SelectItem{column("id"), column("name")}},
		{"names may hold spaces, dashes, digits, _ and $", "select=first+name,x-y,1st,_$",
			[]SelectItem{column("first name"), column("x-y"), column("1st"), column("_$")}},
		{"a quoted name may hold any character", `select="a,b(c)",%22q\%22x%22`,
			[]SelectItem{column("a,b(c)"), column(`q"x`)}},
		{"an alias renames a column", "select=full:name", []SelectItem{with(column("name"), func(s *SelectItem) { s.Alias = "full" })}},
		{"a cast applies to the column", "select=id::text", []SelectItem{with(column("id"), func(s *SelectItem) { s.Cast = "text" })}},
		{"a cast may name a schema-qualified type", "select=c::public.My_Type",
			[]SelectItem{with(column("c"), func(s *SelectItem) { s.Cast = "public.My_Type" })}},
		{"a cast may name an array type", "select=a::int[],b::public.t[][]",
			[]SelectItem{with(column("a"), func(s *SelectItem) { s.Cast = "int[]" }),
				with(column("b"), func(s *SelectItem) { s.Cast = "public.t[][]" })}},
		{"a dot and ( after a cast start an aggregate, not a schema", "select=a::int.sum()",
			[]SelectItem{{Kind: SelectAggregate, Field: fld("a"), Cast: "int", Aggregate: "sum"}}},
		{"alias, JSON path and cast combine", "select=x:data->a->>b::int",
			[]SelectItem{with(column("data", key("->", "a"), key("->>", "b")), func(s *SelectItem) { s.Alias, s.Cast = "x", "int" })}},
		{"a JSON index is an integer step", "select=data->0,data->>-1,data->1a",
			[]SelectItem{column("data", index("->", "0")), column("data", index("->>", "-1")), column("data", key("->", "1a"))}},
		{"a JSON key may hold characters a name may not", "select=data->!@#$%25^%26*_a",
			[]SelectItem{column("data", key("->", "!@#$%^&*_a"))}},
		{"a quoted JSON key may hold reserved characters", `select=data->"a.b,c"`,
			[]SelectItem{column("data", key("->", "a.b,c"))}},
		{"count() counts rows", "select=count()",
			[]SelectItem{{Kind: SelectAggregate, Field: fld("*"), Aggregate: "count"}}},
		{"count() takes an alias and an output cast", "select=n:count()::text",
			[]SelectItem{{Kind: SelectAggregate, Field: fld("*"), Aggregate: "count", Alias: "n", AggregateCast: "text"}}},
		{"every aggregate applies to a column", "select=a.sum(),b.avg(),c.min(),d.max(),e.count()",
			[]SelectItem{
				{Kind: SelectAggregate, Field: fld("a"), Aggregate: "sum"},
				{Kind: SelectAggregate, Field: fld("b"), Aggregate: "avg"},
				{Kind: SelectAggregate, Field: fld("c"), Aggregate: "min"},
				{Kind: SelectAggregate, Field: fld("d"), Aggregate: "max"},
				{Kind: SelectAggregate, Field: fld("e"), Aggregate: "count"},
			}},
		{"an aggregate takes input and output casts and an alias", "select=total:amount::int.sum()::text",
			[]SelectItem{{Kind: SelectAggregate, Field: fld("amount"), Aggregate: "sum", Cast: "int", AggregateCast: "text", Alias: "total"}}},
		{"an aggregate applies to a JSON path", "select=data->>n.sum()",
			[]SelectItem{{Kind: SelectAggregate, Field: fld("data", key("->>", "n")), Aggregate: "sum"}}},
		{"a column named count is a column", "select=count", []SelectItem{column("count")}},
		{"an embed selects from a related resource", "select=id,tasks(id,name)",
			[]SelectItem{column("id"), embed("tasks", column("id"), column("name"))}},
		{"an embed may select nothing", "select=tasks()", []SelectItem{embed("tasks")}},
		{"an embed takes an alias", "select=todo:tasks(*)",
			[]SelectItem{with(embed("tasks", star), func(s *SelectItem) { s.Alias = "todo" })}},
		{"an embed takes a hint", "select=clients!billing_fk(name)",
			[]SelectItem{with(embed("clients", column("name")), func(s *SelectItem) { s.Hint = "billing_fk" })}},
		{"an embed takes a join type", "select=clients!inner(*),users!left(*)",
			[]SelectItem{
				with(embed("clients", star), func(s *SelectItem) { s.JoinType = "inner" }),
				with(embed("users", star), func(s *SelectItem) { s.JoinType = "left" }),
			}},
		{"hint and join type come in either order", "select=a:clients!fk!inner(*),clients!left!fk(*)",
			[]SelectItem{
				with(embed("clients", star), func(s *SelectItem) { s.Alias, s.Hint, s.JoinType = "a", "fk", "inner" }),
				with(embed("clients", star), func(s *SelectItem) { s.Hint, s.JoinType = "fk", "left" }),
			}},
		{"a spread embeds without nesting", "select=id,...clients!inner(name)",
			[]SelectItem{column("id"), {Kind: SelectSpread, Relation: "clients", JoinType: "inner", Children: []SelectItem{column("name")}}}},
		{"embeds nest three levels with spreads, hints and aggregates",
			"select=name,projects!client_fk(id,tasks!inner(name,...users(user:name),comments(count())))",
			[]SelectItem{column("name"), with(embed("projects", column("id"),
				with(embed("tasks", column("name"),
					SelectItem{Kind: SelectSpread, Relation: "users", Children: []SelectItem{with(column("name"), func(s *SelectItem) { s.Alias = "user" })}},
					embed("comments", SelectItem{Kind: SelectAggregate, Field: fld("*"), Aggregate: "count"}),
				), func(s *SelectItem) { s.JoinType = "inner" }),
			), func(s *SelectItem) { s.Hint = "client_fk" })}},
		{"text after a complete select is ignored, as in PostgREST", "select=id)x", []SelectItem{column("id")}},
		{"a select whose first item does not parse selects nothing, as in PostgREST", "select=*!x", []SelectItem{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, mustParse(t, tt.query).Select, tt.want)
		})
	}
}

func TestParseFilters(t *testing.T) {
	f := func(field Field, op, value string) Filter { return Filter{Field: field, Op: op, Value: value} }
	tests := []struct {
		name, query string
		want        []Filter
	}{
		{"eq compares", "id=eq.5", []Filter{f(fld("id"), "eq", "5")}},
		{"neq, gt, gte, lt and lte compare", "a=neq.1&b=gt.2&c=gte.3&d=lt.4&e=lte.5",
			[]Filter{f(fld("a"), "neq", "1"), f(fld("b"), "gt", "2"), f(fld("c"), "gte", "3"), f(fld("d"), "lt", "4"), f(fld("e"), "lte", "5")}},
		{"like and ilike turn * into %", "a=like.*ab*&b=ilike.a*b",
			[]Filter{f(fld("a"), "like", "%ab%"), f(fld("b"), "ilike", "a%b")}},
		{"match and imatch keep the pattern", "a=match.^a.*b$&b=imatch.x*",
			[]Filter{f(fld("a"), "match", "^a.*b$"), f(fld("b"), "imatch", "x*")}},
		{"array and range operators keep the literal", "a=cs.{1,2}&b=cd.{x}&c=ov.[1,5)&d=sl.(1,2)&e=sr.[1,2]&g=nxr.(1,2)&h=nxl.(1,2)&i=adj.(1,2)",
			[]Filter{f(fld("a"), "cs", "{1,2}"), f(fld("b"), "cd", "{x}"), f(fld("c"), "ov", "[1,5)"), f(fld("d"), "sl", "(1,2)"),
				f(fld("e"), "sr", "[1,2]"), f(fld("g"), "nxr", "(1,2)"), f(fld("h"), "nxl", "(1,2)"), f(fld("i"), "adj", "(1,2)")}},
		{"isdistinct takes a value", "a=isdistinct.x", []Filter{f(fld("a"), "isdistinct", "x")}},
		{"is takes null, not_null, true, false and unknown in any case", "a=is.null&b=is.NOT_NULL&c=is.True&d=is.false&e=is.unknown",
			[]Filter{f(fld("a"), "is", "null"), f(fld("b"), "is", "not_null"), f(fld("c"), "is", "true"), f(fld("d"), "is", "false"), f(fld("e"), "is", "unknown")}},
		{"not. negates", "a=not.eq.1&b=not.is.null",
			[]Filter{{Field: fld("a"), Op: "eq", Value: "1", Negated: true}, {Field: fld("b"), Op: "is", Value: "null", Negated: true}}},
		{"the value is everything after the operator", "a=eq.x.y(z),w", []Filter{f(fld("a"), "eq", "x.y(z),w")}},
		{"an operator may compare with the empty string", "a=eq.", []Filter{f(fld("a"), "eq", "")}},
		{"any and all quantify over an array literal", "a=eq(any).{1,2}&b=like(all).{a*,*b}&c=not.gt(any).{1}",
			[]Filter{
				{Field: fld("a"), Op: "eq", Quantifier: "any", Value: "{1,2}"},
				{Field: fld("b"), Op: "like", Quantifier: "all", Value: "{a%,%b}"},
				{Field: fld("c"), Op: "gt", Quantifier: "any", Value: "{1}", Negated: true},
			}},
		{"every quantifiable operator takes a quantifier", "a=gte(all).{1}&b=lt(any).{1}&c=lte(any).{1}&d=ilike(any).{x}&e=match(any).{x}&g=imatch(all).{x}",
			[]Filter{
				{Field: fld("a"), Op: "gte", Quantifier: "all", Value: "{1}"},
				{Field: fld("b"), Op: "lt", Quantifier: "any", Value: "{1}"},
				{Field: fld("c"), Op: "lte", Quantifier: "any", Value: "{1}"},
				{Field: fld("d"), Op: "ilike", Quantifier: "any", Value: "{x}"},
				{Field: fld("e"), Op: "match", Quantifier: "any", Value: "{x}"},
				{Field: fld("g"), Op: "imatch", Quantifier: "all", Value: "{x}"},
			}},
		{"full-text search takes an optional language", "a=fts.cat&b=plfts(english).fat cats&c=phfts(simple).x&d=not.wfts(french).y",
			[]Filter{
				f(fld("a"), "fts", "cat"),
				{Field: fld("b"), Op: "plfts", Language: "english", Value: "fat cats"},
				{Field: fld("c"), Op: "phfts", Language: "simple", Value: "x"},
				{Field: fld("d"), Op: "wfts", Language: "french", Value: "y", Negated: true},
			}},
		{"in lists values", "id=in.(1,2,3)", []Filter{{Field: fld("id"), Op: "in", Values: []string{"1", "2", "3"}}}},
		{"in keeps commas and parentheses inside double quotes", `name=in.("a,b","c)d",e)`,
			[]Filter{{Field: fld("name"), Op: "in", Values: []string{"a,b", "c)d", "e"}}}},
		{"in resolves backslash escapes inside quotes", `name=in.("a\"b","c\\d")`,
			[]Filter{{Field: fld("name"), Op: "in", Values: []string{`a"b`, `c\d`}}}},
		{"in keeps a quote that does not close the element", `name=in.("a"b,c)`,
			[]Filter{{Field: fld("name"), Op: "in", Values: []string{`"a"b`, "c"}}}},
		{"in drops spaces after ( but keeps the rest", "id=in.(+1,+2+)", []Filter{{Field: fld("id"), Op: "in", Values: []string{"1", " 2 "}}}},
		{"in with nothing is one empty value, as in PostgREST", "id=in.()", []Filter{{Field: fld("id"), Op: "in", Values: []string{""}}}},
		{"not.in negates the list", "id=not.in.(1)", []Filter{{Field: fld("id"), Op: "in", Values: []string{"1"}, Negated: true}}},
		{"a filter key may be a JSON path", "data->a->>b=eq.x&data->0=eq.1&data->>-2=eq.2",
			[]Filter{f(fld("data", key("->", "a"), key("->>", "b")), "eq", "x"), f(fld("data", index("->", "0")), "eq", "1"),
				f(fld("data", index("->>", "-2")), "eq", "2")}},
		{"a dotted key filters an embedded resource", "tasks.name=eq.x&tasks.users.data->>a=is.null",
			[]Filter{{EmbedPath: []string{"tasks"}, Field: fld("name"), Op: "eq", Value: "x"},
				{EmbedPath: []string{"tasks", "users"}, Field: fld("data", key("->>", "a")), Op: "is", Value: "null"}}},
		{"a quoted key part may hold a dot", `"a.b".c=eq.1&"x.y"=eq.2`,
			[]Filter{{EmbedPath: []string{"a.b"}, Field: fld("c"), Op: "eq", Value: "1"}, f(fld("x.y"), "eq", "2")}},
		{"select, columns and on_conflict are reserved only at the root", "tasks.select=eq.1",
			[]Filter{{EmbedPath: []string{"tasks"}, Field: fld("select"), Op: "eq", Value: "1"}}},
		{"repeated keys make several filters", "id=gt.1&id=lt.9", []Filter{f(fld("id"), "gt", "1"), f(fld("id"), "lt", "9")}},
		{"a parameter without = is ignored", "id&name=eq.x", []Filter{f(fld("name"), "eq", "x")}},
		{"percent-encoding is decoded per component", "na%6De=eq.a%26b%3Dc%2Bd%25",
			[]Filter{f(fld("name"), "eq", "a&b=c+d%")}},
		{"+ is a space", "name=eq.a+b", []Filter{f(fld("name"), "eq", "a b")}},
		{"a % without two hex digits stays as it is", "name=eq.100%&x=eq.%zz", []Filter{f(fld("name"), "eq", "100%"), f(fld("x"), "eq", "%zz")}},
		{"; separates parameters as & does", "a=eq.1;b=eq.2", []Filter{f(fld("a"), "eq", "1"), f(fld("b"), "eq", "2")}},
		{"the first = splits key and value", "a=eq.b=c", []Filter{f(fld("a"), "eq", "b=c")}},
		{"UTF-8 is decoded", "nom=eq.%C3%A9t%C3%A9", []Filter{f(fld("nom"), "eq", "été")}},
		{"hex digits may be lower case", "nom=eq.%c3%a9%2a", []Filter{f(fld("nom"), "eq", "é*")}},
		{"invalid UTF-8 becomes U+FFFD", "a=eq.%FFx", []Filter{f(fld("a"), "eq", "\uFFFDx")}},
		{"text after a complete key is ignored, as in PostgREST", "id)=eq.1", []Filter{f(fld("id"), "eq", "1")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, mustParse(t, tt.query).Filters, tt.want)
		})
	}
}

func TestParseLogic(t *testing.T) {
	leaf := func(field Field, op, value string) LogicNode {
		return LogicNode{Filter: &Filter{Field: field, Op: op, Value: value}}
	}
	tree := func(neg bool, op string, children ...LogicNode) *LogicTree {
		return &LogicTree{Negated: neg, Op: op, Children: children}
	}
	tests := []struct {
		name, query string
		want        []LogicTree
	}{
		{"or joins filters", "or=(a.eq.1,b.gt.2)", []LogicTree{*tree(false, "or", leaf(fld("a"), "eq", "1"), leaf(fld("b"), "gt", "2"))}},
		{"and joins filters", "and=(a.eq.1,b.gt.2)", []LogicTree{*tree(false, "and", leaf(fld("a"), "eq", "1"), leaf(fld("b"), "gt", "2"))}},
		{"not.or negates the tree", "not.or=(a.eq.1)", []LogicTree{*tree(true, "or", leaf(fld("a"), "eq", "1"))}},
		{"trees nest and negate inside", "or=(a.eq.1,and(b.gt.2,not.or(c.lt.3,d.is.null)))",
			[]LogicTree{*tree(false, "or", leaf(fld("a"), "eq", "1"),
				LogicNode{Tree: tree(false, "and", leaf(fld("b"), "gt", "2"),
					LogicNode{Tree: tree(true, "or", leaf(fld("c"), "lt", "3"), leaf(fld("d"), "is", "null"))})})}},
		{"filters inside take every operator form", "or=(a.not.eq.1,b.in.(1,2),c.eq(any).{1,2},d.fts(english).cat,e.like.*x)",
			[]LogicTree{*tree(false, "or",
				LogicNode{Filter: &Filter{Field: fld("a"), Op: "eq", Value: "1", Negated: true}},
				LogicNode{Filter: &Filter{Field: fld("b"), Op: "in", Values: []string{"1", "2"}}},
				LogicNode{Filter: &Filter{Field: fld("c"), Op: "eq", Quantifier: "any", Value: "{1,2}"}},
				LogicNode{Filter: &Filter{Field: fld("d"), Op: "fts", Language: "english", Value: "cat"}},
				leaf(fld("e"), "like", "%x"))}},
		{"quoted values may hold commas and parentheses", `or=(a.eq."x,y",b.eq."(z)",c.eq."q\"")`,
			[]LogicTree{*tree(false, "or", leaf(fld("a"), "eq", "x,y"), leaf(fld("b"), "eq", "(z)"), leaf(fld("c"), "eq", `q"`))}},
		{"a quote that does not close the value is kept", `or=(a.eq."x"y,b.eq.1)`,
			[]LogicTree{*tree(false, "or", leaf(fld("a"), "eq", `"x"y`), leaf(fld("b"), "eq", "1"))}},
		{"an array literal keeps its commas", "or=(a.cs.{1,2},b.ov.{3})",
			[]LogicTree{*tree(false, "or", leaf(fld("a"), "cs", "{1,2}"), leaf(fld("b"), "ov", "{3}"))}},
		{"JSON paths may be filtered", "or=(data->a.eq.1,data->0.eq.2)",
			[]LogicTree{*tree(false, "or", leaf(fld("data", key("->", "a")), "eq", "1"), leaf(fld("data", index("->", "0")), "eq", "2"))}},
		{"spaces before a filter are dropped, after a value kept", "or=(+a.eq.1+,+b.eq.2)",
			[]LogicTree{*tree(false, "or", leaf(fld("a"), "eq", "1 "), leaf(fld("b"), "eq", "2"))}},
		{"an embedded tree carries its path", "tasks.or=(a.eq.1)&tasks.users.not.and=(b.eq.2)&not.tasks.or=(c.eq.3)",
			[]LogicTree{
				{EmbedPath: []string{"tasks"}, Op: "or", Children: []LogicNode{leaf(fld("a"), "eq", "1")}},
				{EmbedPath: []string{"tasks", "users"}, Negated: true, Op: "and", Children: []LogicNode{leaf(fld("b"), "eq", "2")}},
				{EmbedPath: []string{"tasks"}, Negated: true, Op: "or", Children: []LogicNode{leaf(fld("c"), "eq", "3")}},
			}},
		{"or=.op.value is a filter on a column named or", "or=.eq.1",
			[]LogicTree{*tree(false, "and", leaf(fld("or"), "eq", "1"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := mustParse(t, tt.query)
			check(t, q.Logic, tt.want)
			if len(q.Filters) != 0 {
				t.Errorf("logic parameters became filters: %#v", q.Filters)
			}
		})
	}
}

func TestParseOrder(t *testing.T) {
	tests := []struct {
		name, query string
		want        []OrderSpec
	}{
		{"terms keep their direction and nulls", "order=a.desc.nullslast,b,data->>x.asc,c.nullsfirst",
			[]OrderSpec{{Terms: []OrderTerm{
				{Field: fld("a"), Direction: "desc", Nulls: "last"},
				{Field: fld("b")},
				{Field: fld("data", key("->>", "x")), Direction: "asc"},
				{Field: fld("c"), Nulls: "first"},
			}}}},
		{"a JSON index may be ordered", "order=data->0.desc", []OrderSpec{{Terms: []OrderTerm{{Field: fld("data", index("->", "0")), Direction: "desc"}}}}},
		{"a related column orders by a to-one embed", "order=client(name).desc,client(data->>a)",
			[]OrderSpec{{Terms: []OrderTerm{
				{Relation: "client", Field: fld("name"), Direction: "desc"},
				{Relation: "client", Field: fld("data", key("->>", "a"))},
			}}}},
		{"spaces around terms are dropped", "order=+a+,+b.desc", []OrderSpec{{Terms: []OrderTerm{{Field: fld("a")}, {Field: fld("b"), Direction: "desc"}}}}},
		{"an embedded order carries its path", "tasks.order=id.desc&tasks.users.order=name",
			[]OrderSpec{
				{EmbedPath: []string{"tasks"}, Terms: []OrderTerm{{Field: fld("id"), Direction: "desc"}}},
				{EmbedPath: []string{"tasks", "users"}, Terms: []OrderTerm{{Field: fld("name")}}},
			}},
		{"repeated order parameters are all kept", "order=a&order=b",
			[]OrderSpec{{Terms: []OrderTerm{{Field: fld("a")}}}, {Terms: []OrderTerm{{Field: fld("b")}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, mustParse(t, tt.query).Order, tt.want)
		})
	}
}

func lim(n int64) *int64 { return &n }

func TestParseRanges(t *testing.T) {
	tests := []struct {
		name, query string
		want        map[string]Range
	}{
		{"no limit or offset leaves no ranges", "select=id", nil},
		{"limit caps the root", "limit=10", map[string]Range{"": {Limit: lim(10)}}},
		{"offset skips rows at the root", "offset=5", map[string]Range{"": {Offset: 5}}},
		{"limit and offset combine", "limit=10&offset=20", map[string]Range{"": {Offset: 20, Limit: lim(10)}}},
		{"embedded levels are keyed by their path", "tasks.limit=2&tasks.offset=1&tasks.users.limit=3",
			map[string]Range{"tasks": {Offset: 1, Limit: lim(2)}, "tasks.users": {Limit: lim(3)}}},
		{"the last repeated limit wins", "limit=1&limit=2", map[string]Range{"": {Limit: lim(2)}}},
		{"a limit that is not a number is ignored", "limit=ten", map[string]Range{"": {}}},
		{"a limit that is not a number counts as 0 beside an offset, as in PostgREST", "limit=ten&offset=3",
			map[string]Range{"": {Offset: 3, Limit: lim(0)}}},
		{"a negative limit is kept for RootRange to refuse", "limit=-1", map[string]Range{"": {Limit: lim(-1)}}},
		{"a negative offset is kept for PostgreSQL to refuse", "offset=-1", map[string]Range{"": {Offset: -1}}},
		{"numbers are read as Haskell reads them", "limit=+(+7+)+&offset=0x10", map[string]Range{"": {Offset: 16, Limit: lim(7)}}},
		{"a limit beyond int64 saturates", "limit=99999999999999999999999", map[string]Range{"": {Limit: lim(9223372036854775807)}}},
		{"limit and offset are not filters", "tasks.limit=1&limit=2", map[string]Range{"": {Limit: lim(2)}, "tasks": {Limit: lim(1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := mustParse(t, tt.query)
			check(t, q.Ranges, tt.want)
			if len(q.Filters) != 0 {
				t.Errorf("limit or offset became a filter: %#v", q.Filters)
			}
		})
	}
}

func TestParseColumnsAndOnConflict(t *testing.T) {
	tests := []struct {
		name, query         string
		columns, onConflict []string
	}{
		{"absent parameters are nil", "select=id", nil, nil},
		{"columns are listed in order without repeats", "columns=b,a,+b+", []string{"b", "a"}, nil},
		{"quoted columns may hold commas", `columns="a,b",c`, []string{"a,b", "c"}, nil},
		{"on_conflict lists the conflict columns", "on_conflict=a,b", nil, []string{"a", "b"}},
		{"only the first occurrence counts", "columns=a&columns=b&on_conflict=x&on_conflict=y", []string{"a"}, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := mustParse(t, tt.query)
			check(t, q.Columns, tt.columns)
			check(t, q.OnConflict, tt.onConflict)
			if len(q.Filters) != 0 {
				t.Errorf("reserved parameters became filters: %#v", q.Filters)
			}
		})
	}
}

func TestParseRPCQuery(t *testing.T) {
	tests := []struct {
		name, query string
		params      []Param
		filters     []Filter
	}{
		{"a value without an operator is an argument", "a=1&b=hello", []Param{{"a", "1"}, {"b", "hello"}}, nil},
		{"a value with an operator filters the result", "a=1&id=gt.5", []Param{{"a", "1"}}, []Filter{{Field: fld("id"), Op: "gt", Value: "5"}}},
		{"repeated arguments keep every value in order", "v=1&v=2&w=x&v=3", []Param{{"v", "1"}, {"v", "2"}, {"w", "x"}, {"v", "3"}}, nil},
		{"an empty value is an argument", "a=", []Param{{"a", ""}}, nil},
		{"a value that only starts like an operator is an argument", "a=equal&b=nothing&c=in&d=isx", []Param{{"a", "equal"}, {"b", "nothing"}, {"c", "in"}, {"d", "isx"}}, nil},
		{"reserved parameters are not arguments", "select=x&order=x&limit=1&offset=1&columns=x&on_conflict=x&and=(a.eq.1)&or=(a.eq.1)", nil, nil},
		{"an argument's name is the key's last name", "a.b=1", []Param{{"b", "1"}}, nil},
		{"arguments are decoded", "q=a+b%26c", []Param{{"q", "a b&c"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseRPCQuery(tt.query)
			if err != nil {
				t.Fatalf("ParseRPCQuery(%q): %s: %s | %v", tt.query, err.Code, err.Message, err.Details)
			}
			check(t, q.RPCParams, tt.params)
			check(t, q.Filters, tt.filters)
		})
	}
	t.Run("a table read takes no arguments", func(t *testing.T) {
		if _, err := ParseQuery("a=1"); err == nil || err.Code != "PGRST100" {
			t.Fatalf("ParseQuery(a=1) = %v, want PGRST100", err)
		}
	})
}

func BenchmarkParseQuery(b *testing.B) {
	for _, bc := range []struct{ name, query string }{
		{"one filter", "id=eq.5"},
		{"a typical read", "select=id,name,client:clients!inner(id,name),tasks(id,title,done)&id=gt.10&name=ilike.*foo*" +
			"&status=in.(open,closed)&order=created_at.desc.nullslast,id&limit=25&offset=50&tasks.order=id"},
		{"shapes only the grammar reads", "select=id,data->>a::int,total:amount.sum(),users(first name)" +
			"&or=(a.eq.1,and(b.gt.2,c.is.null))&tags=cs.{a,b}&d=eq(any).{1,2}&order=client(name).desc"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseQuery(bc.query); err != nil {
					b.Fatal(err.Message)
				}
			}
		})
	}
}
