package apirequest

import "testing"

// The messages and details below are PostgREST's: the cases marked
// "PostgREST's own example" reproduce the doctests of its QueryParams
// module word for word; the others follow from the same grammar.
func TestParseQueryErrors(t *testing.T) {
	tests := []struct {
		name, query      string
		message, details string
	}{
		// filters
		{"a filter without an operator is refused (PostgREST's own example)", "id=val",
			`"failed to parse filter (val)" (line 1, column 1)`, `unexpected "v" expecting "not" or operator (eq, gt, ...)`},
		{"an unknown operator is refused (PostgREST's own example)", "a.b=noop.0",
			`"failed to parse filter (noop.0)" (line 1, column 1)`, `unexpected "o" expecting "not" or operator (eq, gt, ...)`},
		{"an operator run into its value is refused", "id=eqx.1",
			`"failed to parse filter (eqx.1)" (line 1, column 3)`, `unexpected "x" expecting operator (eq, gt, ...)`},
		{"an empty filter value is refused", "id=",
			`"failed to parse filter ()" (line 1, column 1)`, `unexpected end of input expecting "not" or operator (eq, gt, ...)`},
		{"not must be followed by an operator", "id=not.5",
			`"failed to parse filter (not.5)" (line 1, column 5)`, `unexpected "5" expecting operator (eq, gt, ...)`},
		{"is takes only its five values", "id=is.maybe",
			`"failed to parse filter (is.maybe)" (line 1, column 4)`, `unexpected "m" expecting isVal: (null, not_null, true, false, unknown)`},
		{"in needs parentheses", "id=in.1,2",
			`"failed to parse filter (in.1,2)" (line 1, column 4)`, `unexpected "1" expecting "("`},
		{"in needs its closing parenthesis", "id=in.(1,2",
			`"failed to parse filter (in.(1,2)" (line 1, column 8)`, `unexpected end of input expecting "," or ")"`},
		{"a quantifier is any or all", "id=eq(some).1",
			`"failed to parse filter (eq(some).1)" (line 1, column 4)`, `unexpected "s" expecting operator (eq, gt, ...)`},
		{"an empty fts language is refused (PostgREST's own example)", "t=fts().value",
			`"failed to parse filter (fts().value)" (line 1, column 5)`, `unexpected ")" expecting operator (eq, gt, ...)`},
		{"an fts language takes no dash", "t=fts(en-gb).x",
			`"failed to parse filter (fts(en-gb).x)" (line 1, column 7)`, `unexpected "-" expecting operator (eq, gt, ...)`},
		{"is takes no quantifier (PostgREST's own example)", "t=is().value",
			`"failed to parse filter (is().value)" (line 1, column 3)`, `unexpected "(" expecting operator (eq, gt, ...)`},
		{"a non-ASCII character is shown as Haskell shows it", "name=%E2%82%ACx",
			`"failed to parse filter (€x)" (line 1, column 1)`, `unexpected "\8364" expecting "not" or operator (eq, gt, ...)`},
		// filter keys
		{"an empty key is refused", "=eq.1",
			`"failed to parse tree path ()" (line 1, column 1)`, `unexpected end of input expecting field name (* or [a..z0..9_$])`},
		{"an empty embed name is refused", "a..b=eq.1",
			`"failed to parse tree path (a..b)" (line 1, column 3)`, `unexpected "." expecting field name (* or [a..z0..9_$])`},
		{"a key cannot end in a dot", "a.=eq.1",
			`"failed to parse tree path (a.)" (line 1, column 3)`, `unexpected end of input expecting field name (* or [a..z0..9_$])`},
		{"an arrow needs a key", "a->=eq.1",
			`"failed to parse tree path (a->)" (line 1, column 4)`, `unexpected end of input expecting "-", digit or any non reserved character different from: .,>()`},
		{"a JSON index has one sign (PostgREST's own example)", "a->>--34=eq.1",
			`"failed to parse tree path (a->>--34)" (line 1, column 6)`, `unexpected "-" expecting digit`},
		// select
		{"a cast takes no brackets (PostgREST's own example)", "select=id,clients(name[])",
			`"failed to parse select parameter (id,clients(name[]))" (line 1, column 16)`,
			`unexpected '[' expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input`},
		{"a JSON index is digits only (PostgREST's own example)", "select=data->>-78xy",
			`"failed to parse select parameter (data->>-78xy)" (line 1, column 11)`,
			`unexpected 'x' expecting digit, "->", "::", ".", "," or end of input`},
		{"a column takes no hint (PostgREST's own example)", "select=name!hint",
			`"failed to parse select parameter (name!hint)" (line 1, column 5)`,
			`unexpected '!' expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input`},
		{"a cast needs a type (PostgREST's own example)", "select=name::",
			`"failed to parse select parameter (name::)" (line 1, column 7)`, `unexpected end of input expecting letter or digit`},
		// A cast's type becomes SQL: only type-name characters pass.
		{"a cast takes no spaces", "select=title::text array as x from announcements where false union all select setconfig from pg_db_role_setting union all select null",
			`"failed to parse select parameter (title::text array as x from announcements where false union all select setconfig from pg_db_role_setting union all select null)" (line 1, column 12)`,
			`unexpected ' ' expecting letter, digit, ".", "[]", "::", ")", "," or end of input`},
		{"a cast takes no $", "select=title::text$$",
			`"failed to parse select parameter (title::text$$)" (line 1, column 12)`,
			`unexpected '$' expecting letter, digit, ".", "[]", "::", ")", "," or end of input`},
		{"a cast takes no quote", `select=title::"text"`,
			`"failed to parse select parameter (title::"text")" (line 1, column 8)`,
			`unexpected "\"" expecting letter or digit`},
		{"a cast takes no comment", "select=title::text--x",
			`"failed to parse select parameter (title::text--x)" (line 1, column 12)`,
			`unexpected '-' expecting letter, digit, ".", "[]", "::", ")", "," or end of input`},
		{"a cast takes no non-ASCII letter", "select=title::tëxt",
			`"failed to parse select parameter (title::tëxt)" (line 1, column 9)`,
			`unexpected '\235' expecting letter, digit, ".", "[]", "::", ")", "," or end of input`},
		{"a trailing comma is refused", "select=id,",
			`"failed to parse select parameter (id,)" (line 1, column 4)`,
			`unexpected end of input expecting "...", field name (* or [a..z0..9_$]), "*" or "count()"`},
		{"an embed needs its closing parenthesis", "select=id,items(name",
			`"failed to parse select parameter (id,items(name)" (line 1, column 14)`,
			`unexpected end of input expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input`},
		{"an aggregate needs its parentheses", "select=id.sum",
			`"failed to parse select parameter (id.sum)" (line 1, column 7)`, `unexpected end of input expecting "()"`},
		{"count takes no argument", "select=count(*)",
			`"failed to parse select parameter (count(*))" (line 1, column 6)`,
			`unexpected '(' expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input`},
		{"one alias only", "select=a:b:c",
			`"failed to parse select parameter (a:b:c)" (line 1, column 4)`, `unexpected "c" expecting "::"`},
		{"a quoted name must be closed", `select="unterminated`,
			`"failed to parse select parameter ("unterminated)" (line 1, column 14)`, `unexpected end of input expecting "\\" or "\""`},
		// order
		{"an empty order is refused", "order=",
			`"failed to parse order ()" (line 1, column 1)`, `unexpected end of input expecting field name (* or [a..z0..9_$])`},
		{"a misspelt direction is refused (PostgREST's own example)", "order=id.ac",
			`"failed to parse order (id.ac)" (line 1, column 4)`, `unexpected "c" expecting "asc", "desc", "nullsfirst" or "nullslast"`},
		{"text after the direction is refused (PostgREST's own example)", "order=id.descc",
			`"failed to parse order (id.descc)" (line 1, column 8)`, `unexpected 'c' expecting delimiter (.), "," or end of input`},
		{"a misspelt nulls order is refused (PostgREST's own example)", "order=id.asc.nlsfst",
			`"failed to parse order (id.asc.nlsfst)" (line 1, column 8)`, `unexpected "l" expecting "nullsfirst" or "nullslast"`},
		{"a related order takes one column (PostgREST's own example)", "order=clients(name,id)",
			`"failed to parse order (clients(name,id))" (line 1, column 8)`,
			`unexpected '(' expecting letter, digit, "-", "->>", "->", delimiter (.), "," or end of input`},
		{"an embedded order needs a valid path", "a..order=id",
			`"failed to parse tree path (a..order)" (line 1, column 3)`, `unexpected "." expecting field name (* or [a..z0..9_$])`},
		// logic trees; positions count from the operator put before the value
		{"an empty tree is refused (PostgREST's own example)", "or=()",
			`"failed to parse logic tree (())" (line 1, column 4)`,
			`unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)`},
		{"in inside a tree needs parentheses (PostgREST's own example)", "or=(id.in.1,2,id.eq.3)",
			`"failed to parse logic tree ((id.in.1,2,id.eq.3))" (line 1, column 10)`, `unexpected "1" expecting "("`},
		{"a nested operator is and or or (PostgREST's own example)", "or=(id.eq.1,not.xor(id.eq.2,id.eq.3))",
			`"failed to parse logic tree ((id.eq.1,not.xor(id.eq.2,id.eq.3)))" (line 1, column 16)`,
			`unexpected "x" expecting logic operator (and, or)`},
		{"a tree needs its closing parenthesis", "or=(a.eq.1",
			`"failed to parse logic tree ((a.eq.1)" (line 1, column 10)`, `unexpected end of input expecting "," or ")"`},
		{"a trailing comma in a tree is refused", "and=(a.eq.1,)",
			`"failed to parse logic tree ((a.eq.1,))" (line 1, column 12)`,
			`unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)`},
		{"a negated tree counts from not.or", "not.or=(a.xx.1)",
			`"failed to parse logic tree ((a.xx.1))" (line 1, column 10)`, `unexpected "x" expecting "not" or operator (eq, gt, ...)`},
		{"a logic key needs a valid path", "x..or=(a.eq.1)",
			`"failed to parse logic path (x..or)" (line 1, column 3)`, `unexpected "." expecting field name (* or [a..z0..9_$])`},
		// columns, on_conflict, limit/offset paths
		{"an empty columns is refused", "columns=",
			`"failed to parse columns parameter ()" (line 1, column 1)`, `unexpected end of input expecting field name (* or [a..z0..9_$])`},
		{"an empty column name is refused", "columns=a,,b",
			`"failed to parse columns parameter (a,,b)" (line 1, column 3)`, `unexpected "," expecting field name (* or [a..z0..9_$])`},
		{"on_conflict cannot end in a comma", "on_conflict=a,",
			`"failed to parse on_conflict parameter (a,)" (line 1, column 3)`, `unexpected end of input expecting field name (* or [a..z0..9_$])`},
		{"an offset's path is reported with limit, as in PostgREST", "a..offset=2",
			`"failed to parse tree path (a..limit)" (line 1, column 3)`, `unexpected "." expecting field name (* or [a..z0..9_$])`},
		// order of checks
		{"order is checked before filters", "id=val&order=",
			`"failed to parse order ()" (line 1, column 1)`, `unexpected end of input expecting field name (* or [a..z0..9_$])`},
		{"select is checked before filters", "id=val&select=id,",
			`"failed to parse select parameter (id,)" (line 1, column 4)`,
			`unexpected end of input expecting "...", field name (* or [a..z0..9_$]), "*" or "count()"`},
		{"a key is checked before its value", "a..b=val",
			`"failed to parse tree path (a..b)" (line 1, column 3)`, `unexpected "." expecting field name (* or [a..z0..9_$])`},
		{"lines and tabs move the position as in Parsec", "select=%22x%0A%09y%22!",
			"\"failed to parse select parameter (\"x\n\ty\"!)\" (line 2, column 11)",
			`unexpected '!' expecting "->>", "->", "::", ".", ")", "," or end of input`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery(tt.query)
			if err == nil {
				t.Fatalf("ParseQuery(%q) = %#v, want PGRST100", tt.query, q)
			}
			if err.Code != "PGRST100" || err.Status != 400 {
				t.Errorf("code %s, status %d; want PGRST100, 400", err.Code, err.Status)
			}
			if err.Message != tt.message {
				t.Errorf("message\n got %s\nwant %s", err.Message, tt.message)
			}
			if err.Details != tt.details {
				t.Errorf("details\n got %v\nwant %s", err.Details, tt.details)
			}
			if err.Hint != nil {
				t.Errorf("hint %v, want none", err.Hint)
			}
		})
	}
}

func TestParseRPCQueryErrors(t *testing.T) {
	tests := []struct {
		name, query      string
		message, details string
	}{
		{"a value that commits to in must still parse", "a=in.x",
			`"failed to parse filter (in.x)" (line 1, column 4)`, `unexpected "x" expecting "("`},
		{"a value that commits to not must still parse", "a=not.x",
			`"failed to parse filter (not.x)" (line 1, column 5)`, `unexpected "x" expecting operator (eq, gt, ...)`},
		{"a value that commits to is must still parse", "a=is.x",
			`"failed to parse filter (is.x)" (line 1, column 4)`, `unexpected "x" expecting isVal: (null, not_null, true, false, unknown)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRPCQuery(tt.query)
			if err == nil {
				t.Fatalf("ParseRPCQuery(%q) succeeded, want PGRST100", tt.query)
			}
			if err.Code != "PGRST100" || err.Message != tt.message || err.Details != tt.details {
				t.Errorf("got %s %s | %v\nwant PGRST100 %s | %s", err.Code, err.Message, err.Details, tt.message, tt.details)
			}
		})
	}
}

func TestHaskellShow(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"a plain character is quoted", hsShowChar('x'), `'x'`},
		{"a single quote is escaped in a character", hsShowChar('\''), `'\''`},
		{"a double quote is escaped in a string", hsShowString(`"`), `"\""`},
		{"a backslash is doubled", hsShowString(`\`), `"\\"`},
		{"control characters take their names", hsShowString("\n\t\x00\x1b\x7f"), `"\n\t\NUL\ESC\DEL"`},
		{"non-ASCII characters are decimal escapes", hsShowChar('é'), `'\233'`},
		{"a decimal escape before a digit is closed with \\&", hsShowString("é1"), `"\233\&1"`},
		{"SO before H is closed with \\&", hsShowString("\x0eH"), `"\SO\&H"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %s, want %s", tt.got, tt.want)
			}
		})
	}
}
