package read

import (
	"net/http"
	"testing"
)

// TestFilterErrors checks the errors of malformed query strings (PGRST100,
// with PostgREST's Parsec messages and positions) and of well-formed
// filters the database refuses.
func TestFilterErrors(t *testing.T) {
	s := startServer(t)

	t.Run("filters that do not parse", func(t *testing.T) {
		runFailures(t, s, []failure{
			parseError("a value without an operator", "/tasks?id=val",
				`"failed to parse filter (val)" (line 1, column 1)`, `unexpected "v" expecting "not" or operator (eq, gt, ...)`),
			parseError("an unknown operator", "/tasks?id=noop.0",
				`"failed to parse filter (noop.0)" (line 1, column 1)`, `unexpected "o" expecting "not" or operator (eq, gt, ...)`),
			parseError("an operator run into its value", "/tasks?id=eqx.1",
				`"failed to parse filter (eqx.1)" (line 1, column 3)`, `unexpected "x" expecting operator (eq, gt, ...)`),
			parseError("an operator without a dot and value", "/tasks?id=eq",
				`"failed to parse filter (eq)" (line 1, column 3)`, `unexpected end of input expecting operator (eq, gt, ...)`),
			parseError("an empty value", "/tasks?id=",
				`"failed to parse filter ()" (line 1, column 1)`, `unexpected end of input expecting "not" or operator (eq, gt, ...)`),
			parseError("not followed by a value", "/tasks?id=not.5",
				`"failed to parse filter (not.5)" (line 1, column 5)`, `unexpected "5" expecting operator (eq, gt, ...)`),
			parseError("not twice", "/tasks?id=not.not.eq.1",
				`"failed to parse filter (not.not.eq.1)" (line 1, column 5)`, `unexpected "n" expecting operator (eq, gt, ...)`),
			parseError("is with a value it does not take", "/tasks?priority=is.maybe",
				`"failed to parse filter (is.maybe)" (line 1, column 4)`, `unexpected "m" expecting isVal: (null, not_null, true, false, unknown)`),
			parseError("in without parentheses", "/tasks?id=in.1,2",
				`"failed to parse filter (in.1,2)" (line 1, column 4)`, `unexpected "1" expecting "("`),
			parseError("in without its closing parenthesis", "/tasks?id=in.(1,2",
				`"failed to parse filter (in.(1,2)" (line 1, column 8)`, `unexpected end of input expecting "," or ")"`),
			parseError("a quantifier other than any or all", "/tasks?id=eq(some).1",
				`"failed to parse filter (eq(some).1)" (line 1, column 4)`, `unexpected "s" expecting operator (eq, gt, ...)`),
			parseError("a quantifier on neq, which takes none", "/tasks?id=neq(all).%7B1,2%7D",
				`"failed to parse filter (neq(all).{1,2})" (line 1, column 4)`, `unexpected "(" expecting operator (eq, gt, ...)`),
			parseError("a quantifier on cs, which takes none", "/tasks?tags=cs(any).%7Bops%7D",
				`"failed to parse filter (cs(any).{ops})" (line 1, column 3)`, `unexpected "(" expecting operator (eq, gt, ...)`),
			parseError("a quantifier on is", "/tasks?priority=is().null",
				`"failed to parse filter (is().null)" (line 1, column 3)`, `unexpected "(" expecting operator (eq, gt, ...)`),
			parseError("an empty fts language", "/articles?search=fts().cats",
				`"failed to parse filter (fts().cats)" (line 1, column 5)`, `unexpected ")" expecting operator (eq, gt, ...)`),
			parseError("an fts language with a dash", "/articles?search=fts(en-gb).cats",
				`"failed to parse filter (fts(en-gb).cats)" (line 1, column 7)`, `unexpected "-" expecting operator (eq, gt, ...)`),
			parseError("an fts language without its closing parenthesis", "/articles?search=fts(english.cats",
				`"failed to parse filter (fts(english.cats)" (line 1, column 12)`, `unexpected "." expecting operator (eq, gt, ...)`),
			parseError("a non-ASCII character shown as Haskell shows it", "/clients?name=%E2%82%ACx",
				`"failed to parse filter (€x)" (line 1, column 1)`, `unexpected "\8364" expecting "not" or operator (eq, gt, ...)`),
		})
	})

	t.Run("filter keys that do not parse", func(t *testing.T) {
		runFailures(t, s, []failure{
			parseError("an empty key", "/tasks?=eq.1",
				`"failed to parse tree path ()" (line 1, column 1)`, `unexpected end of input expecting field name (* or [a..z0..9_$])`),
			parseError("an empty embed name", "/tasks?projects..id=eq.1",
				`"failed to parse tree path (projects..id)" (line 1, column 10)`, `unexpected "." expecting field name (* or [a..z0..9_$])`),
			parseError("a key ending in a dot", "/tasks?projects.=eq.1",
				`"failed to parse tree path (projects.)" (line 1, column 10)`, `unexpected end of input expecting field name (* or [a..z0..9_$])`),
			parseError("an arrow without a key", "/projects?settings->=eq.1",
				`"failed to parse tree path (settings->)" (line 1, column 11)`, `unexpected end of input expecting "-", digit or any non reserved character different from: .,>()`),
			parseError("a JSON index with two signs", "/projects?settings->>--1=eq.1",
				`"failed to parse tree path (settings->>--1)" (line 1, column 13)`, `unexpected "-" expecting digit`),
		})
	})

	t.Run("logic trees that do not parse", func(t *testing.T) {
		runFailures(t, s, []failure{
			parseError("an empty or", "/tasks?or=()",
				`"failed to parse logic tree (())" (line 1, column 4)`,
				`unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)`),
			parseError("an empty and counts from and", "/tasks?and=()",
				`"failed to parse logic tree (())" (line 1, column 5)`,
				`unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)`),
			parseError("in without parentheses inside a tree", "/tasks?or=(id.in.1,2,id.eq.3)",
				`"failed to parse logic tree ((id.in.1,2,id.eq.3))" (line 1, column 10)`, `unexpected "1" expecting "("`),
			parseError("a nested operator other than and or or", "/tasks?or=(id.eq.1,not.xor(id.eq.2,id.eq.3))",
				`"failed to parse logic tree ((id.eq.1,not.xor(id.eq.2,id.eq.3)))" (line 1, column 16)`,
				`unexpected "x" expecting logic operator (and, or)`),
			parseError("not before a column inside a tree", "/tasks?or=(not.id.eq.1)",
				`"failed to parse logic tree ((not.id.eq.1))" (line 1, column 8)`, `unexpected "i" expecting logic operator (and, or)`),
			parseError("a tree without its closing parenthesis", "/tasks?or=(id.eq.1",
				`"failed to parse logic tree ((id.eq.1)" (line 1, column 11)`, `unexpected end of input expecting "," or ")"`),
			parseError("a trailing comma in a tree", "/tasks?and=(id.eq.1,)",
				`"failed to parse logic tree ((id.eq.1,))" (line 1, column 13)`,
				`unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)`),
			parseError("two commas in a tree", "/tasks?or=(id.eq.1,,id.eq.2)",
				`"failed to parse logic tree ((id.eq.1,,id.eq.2))" (line 1, column 12)`,
				`unexpected "," expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)`),
			parseError("a negated tree counts from not.or", "/tasks?not.or=(id.xx.1)",
				`"failed to parse logic tree ((id.xx.1))" (line 1, column 11)`, `unexpected "x" expecting "not" or operator (eq, gt, ...)`),
			parseError("a logic key with an empty embed name", "/tasks?x..or=(id.eq.1)",
				`"failed to parse logic path (x..or)" (line 1, column 3)`, `unexpected "." expecting field name (* or [a..z0..9_$])`),
		})
	})

	t.Run("select lists that do not parse", func(t *testing.T) {
		runFailures(t, s, []failure{
			parseError("a cast with brackets", "/tasks?select=id,projects(name[])",
				`"failed to parse select parameter (id,projects(name[]))" (line 1, column 17)`,
				`unexpected '[' expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input`),
			parseError("a JSON index with letters", "/projects?select=settings->>-78xy",
				`"failed to parse select parameter (settings->>-78xy)" (line 1, column 15)`,
				`unexpected 'x' expecting digit, "->", "::", ".", "," or end of input`),
			parseError("a column with a hint", "/tasks?select=title!hint",
				`"failed to parse select parameter (title!hint)" (line 1, column 6)`,
				`unexpected '!' expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input`),
			parseError("a cast without a type", "/tasks?select=title::",
				`"failed to parse select parameter (title::)" (line 1, column 8)`, `unexpected end of input expecting letter or digit`),
			parseError("a trailing comma", "/tasks?select=id,",
				`"failed to parse select parameter (id,)" (line 1, column 4)`,
				`unexpected end of input expecting "...", field name (* or [a..z0..9_$]), "*" or "count()"`),
			parseError("two commas", "/tasks?select=id,,title",
				`"failed to parse select parameter (id,,title)" (line 1, column 4)`,
				`unexpected "," expecting "...", field name (* or [a..z0..9_$]), "*" or "count()"`),
			parseError("an alias without a name", "/tasks?select=id:",
				`"failed to parse select parameter (id:)" (line 1, column 4)`,
				`unexpected end of input expecting ":" or field name (* or [a..z0..9_$])`),
			parseError("two aliases", "/tasks?select=a:b:id",
				`"failed to parse select parameter (a:b:id)" (line 1, column 4)`, `unexpected "i" expecting "::"`),
			parseError("an arrow without a key", "/projects?select=settings->",
				`"failed to parse select parameter (settings->)" (line 1, column 11)`,
				`unexpected end of input expecting "-", digit or any non reserved character different from: .,>()`),
			parseError("an embed without its closing parenthesis", "/projects?select=id,tasks(title",
				`"failed to parse select parameter (id,tasks(title)" (line 1, column 15)`,
				`unexpected end of input expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input`),
			parseError("an aggregate without parentheses", "/tasks?select=priority.sum",
				`"failed to parse select parameter (priority.sum)" (line 1, column 13)`, `unexpected end of input expecting "()"`),
			parseError("count with an argument", "/tasks?select=count(*)",
				`"failed to parse select parameter (count(*))" (line 1, column 6)`,
				`unexpected '(' expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input`),
			parseError("an unterminated quoted name", "/tasks?select=%22title",
				`"failed to parse select parameter ("title)" (line 1, column 7)`, `unexpected end of input expecting "\\" or "\""`),
			parseError("a position after a newline and a tab counts as Parsec counts", "/tasks?select=%22x%0A%09y%22!",
				"\"failed to parse select parameter (\"x\n\ty\"!)\" (line 2, column 11)",
				`unexpected '!' expecting "->>", "->", "::", ".", ")", "," or end of input`),
		})
	})

	t.Run("orders that do not parse", func(t *testing.T) {
		runFailures(t, s, []failure{
			parseError("an empty order", "/tasks?order=",
				`"failed to parse order ()" (line 1, column 1)`, `unexpected end of input expecting field name (* or [a..z0..9_$])`),
			parseError("a misspelt direction", "/tasks?order=id.ac",
				`"failed to parse order (id.ac)" (line 1, column 4)`, `unexpected "c" expecting "asc", "desc", "nullsfirst" or "nullslast"`),
			parseError("text after the direction", "/tasks?order=id.descc",
				`"failed to parse order (id.descc)" (line 1, column 8)`, `unexpected 'c' expecting delimiter (.), "," or end of input`),
			parseError("a misspelt nulls order", "/tasks?order=id.asc.nlsfst",
				`"failed to parse order (id.asc.nlsfst)" (line 1, column 8)`, `unexpected "l" expecting "nullsfirst" or "nullslast"`),
			parseError("a truncated nulls order", "/tasks?order=title.desc.nulls",
				`"failed to parse order (title.desc.nulls)" (line 1, column 12)`, `unexpected end of input expecting "nullsfirst" or "nullslast"`),
			parseError("text after the nulls order", "/tasks?order=id.asc.nullsfirst.x",
				`"failed to parse order (id.asc.nullsfirst.x)" (line 1, column 18)`, `unexpected '.' expecting "," or end of input`),
			parseError("a trailing comma", "/tasks?order=id,",
				`"failed to parse order (id,)" (line 1, column 4)`, `unexpected end of input expecting field name (* or [a..z0..9_$])`),
			parseError("a related order with two columns", "/tasks?order=projects(name,id)",
				`"failed to parse order (projects(name,id))" (line 1, column 9)`,
				`unexpected '(' expecting letter, digit, "-", "->>", "->", delimiter (.), "," or end of input`),
		})
	})

	t.Run("parameters are checked in PostgREST's order", func(t *testing.T) {
		runFailures(t, s, []failure{
			parseError("order before filters", "/tasks?id=val&order=",
				`"failed to parse order ()" (line 1, column 1)`, `unexpected end of input expecting field name (* or [a..z0..9_$])`),
			parseError("select before filters", "/tasks?id=val&select=id,",
				`"failed to parse select parameter (id,)" (line 1, column 4)`,
				`unexpected end of input expecting "...", field name (* or [a..z0..9_$]), "*" or "count()"`),
			parseError("a key before its value", "/tasks?a..b=val",
				`"failed to parse tree path (a..b)" (line 1, column 3)`, `unexpected "." expecting field name (* or [a..z0..9_$])`),
		})
	})

	t.Run("filters the database refuses", func(t *testing.T) {
		const noOperatorHint = "No operator matches the given name and argument types. You might need to add explicit type casts."
		runFailures(t, s, []failure{
			{name: "an unknown column is 42703 with the database's message", path: "/tasks?select=id&nope=eq.1",
				status: http.StatusBadRequest, code: "42703", message: "column tasks.nope does not exist"},
			{name: "a JSON path on an unknown column is 42703", path: "/tasks?select=id&settings->>a=eq.1",
				status: http.StatusBadRequest, code: "42703", message: "column tasks.settings does not exist"},
			{name: "a logic value without parentheses is a filter on the joined name, as in PostgREST", path: "/tasks?select=id&or=id.eq.1",
				status: http.StatusBadRequest, code: "42703", message: "column tasks.orid does not exist",
				hint: `Perhaps you meant to reference the column "tasks.id".`},
			{name: "a value of the wrong type is 22P02", path: "/tasks?select=id&id=eq.abc",
				status: http.StatusBadRequest, code: "22P02", message: `invalid input syntax for type integer: "abc"`},
			{name: "a wrong value in a list is 22P02", path: "/tasks?select=id&id=in.(1,x)",
				status: http.StatusBadRequest, code: "22P02", message: `invalid input syntax for type integer: "x"`},
			{name: "a fraction for an integer is 22P02", path: "/tasks?select=id&id=gt.1.5",
				status: http.StatusBadRequest, code: "22P02", message: `invalid input syntax for type integer: "1.5"`},
			{name: "an unknown enum label is 22P02", path: "/tasks?select=id&status=eq.blocked",
				status: http.StatusBadRequest, code: "22P02", message: `invalid input value for enum task_status: "blocked"`},
			{name: "like on an integer is 42883, a 404", path: "/tasks?select=id&id=like.1*",
				status: http.StatusNotFound, code: "42883", message: "operator does not exist: integer ~~ unknown", hint: noOperatorHint},
			{name: "cs on an integer is 42883", path: "/tasks?select=id&id=cs.%7B1%7D",
				status: http.StatusNotFound, code: "42883", message: "operator does not exist: integer @> unknown", hint: noOperatorHint},
			{name: "a range operator on an array is 42883", path: "/tasks?select=id&tags=sl.%7Ba%7D",
				status: http.StatusNotFound, code: "42883", message: "operator does not exist: text[] << unknown", hint: noOperatorHint},
			{name: "is true on text is 42804", path: "/tasks?select=id&title=is.true",
				status: http.StatusBadRequest, code: "42804", message: "argument of IS TRUE must be type boolean, not type text"},
			{name: "an unknown fts language is 42704", path: "/articles?select=id&search=fts(klingon).qapla",
				status: http.StatusBadRequest, code: "42704", message: `text search configuration "klingon" does not exist`},
			{name: "a malformed range is 22P02 with the database's details", path: "/reservations?select=id&seats=adj.5",
				status: http.StatusBadRequest, code: "22P02", message: `malformed range literal: "5"`, details: "Missing left parenthesis or bracket."},
			{name: "a malformed array is 22P02 with the database's details", path: "/tasks?select=id&tags=cs.ops",
				status: http.StatusBadRequest, code: "22P02", message: `malformed array literal: "ops"`, details: `Array value must start with "{" or dimension information.`},
		})
	})
}
