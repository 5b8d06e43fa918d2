package write

import (
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// startReprServer serves schema repr, whose todos.label_color has data
// representations, from its seed rows.
func startReprServer(t *testing.T) *server {
	t.Helper()
	pgtest.Exec(t, superDSN, "select repr.reset()")
	return startServer(t, "db_schemas repr")
}

// TestDataRepresentationsParseBodies writes label_color as JSON text
// ("#RRGGBB"): the implicit json-to-domain cast's function parses the
// body's values on POST, PATCH, PUT and upserts, and the response formats
// them back.
func TestDataRepresentationsParseBodies(t *testing.T) {
	s := startReprServer(t)
	stored := func(t *testing.T, want string) {
		t.Helper()
		expectRows(t, "select id, name, label_color::int as c from repr.todos order by id", want)
	}
	t.Run("POST parses and formats back", func(t *testing.T) {
		pgtest.Exec(t, superDSN, "select repr.reset()")
		res := s.do(t, "POST", "/todos", `{"id":5,"name":"party","label_color":"#001100"}`, "Prefer", "return=representation")
		res.expectStatus(t, 201)
		res.expectBody(t, `[{"id":5,"name":"party","label_color":"#001100"}]`)
		stored(t, `[{"id":1,"name":"Report","c":0},{"id":2,"name":"Essay","c":256},{"id":3,"name":"Algebra","c":123456},{"id":5,"name":"party","c":4352}]`)
	})
	t.Run("POST of rows, one without the key", func(t *testing.T) {
		pgtest.Exec(t, superDSN, "select repr.reset()")
		s.do(t, "POST", "/todos?columns=id,name,label_color", `[{"id":6,"name":"a","label_color":"0000FF"},{"id":7,"name":"b"}]`).expectStatus(t, 201)
		expectRows(t, "select id, label_color::int as c from repr.todos where id > 5 order by id", `[{"id":6,"c":255},{"id":7,"c":null}]`)
	})
	t.Run("missing=default fills an absent key with the default", func(t *testing.T) {
		pgtest.Exec(t, superDSN, "select repr.reset()")
		s.do(t, "POST", "/todos?columns=id,name,label_color", `[{"id":8,"name":"a"},{"id":9,"name":"b","label_color":"#000002"}]`,
			"Prefer", "missing=default").expectStatus(t, 201)
		expectRows(t, "select id, label_color::int as c from repr.todos where id > 5 order by id", `[{"id":8,"c":255},{"id":9,"c":2}]`)
	})
	t.Run("PATCH parses the body and filters through the text parser", func(t *testing.T) {
		pgtest.Exec(t, superDSN, "select repr.reset()")
		res := s.do(t, "PATCH", "/todos?label_color=eq.%23000100", `{"label_color":"#0000FF","name":"Essay 2"}`, "Prefer", "return=representation")
		res.expectStatus(t, 200)
		res.expectBody(t, `[{"id":2,"name":"Essay 2","label_color":"#0000FF"}]`)
		stored(t, `[{"id":1,"name":"Report","c":0},{"id":2,"name":"Essay 2","c":255},{"id":3,"name":"Algebra","c":123456}]`)
	})
	t.Run("PUT parses the body", func(t *testing.T) {
		pgtest.Exec(t, superDSN, "select repr.reset()")
		res := s.do(t, "PUT", "/todos?id=eq.1", `{"id":1,"name":"Report","label_color":"#ABCDEF"}`, "Prefer", "return=representation")
		res.expectStatus(t, 200)
		res.expectBody(t, `[{"id":1,"name":"Report","label_color":"#ABCDEF"}]`)
		expectRows(t, "select label_color::int as c from repr.todos where id = 1", `[{"c":11259375}]`)
	})
	t.Run("an upsert parses the body", func(t *testing.T) {
		pgtest.Exec(t, superDSN, "select repr.reset()")
		s.do(t, "POST", "/todos", `[{"id":3,"name":"Algebra","label_color":"#000003"},{"id":4,"name":"new","label_color":"#000004"}]`,
			"Prefer", "resolution=merge-duplicates").expectStatus(t, 201)
		expectRows(t, "select id, label_color::int as c from repr.todos where id >= 3 order by id", `[{"id":3,"c":3},{"id":4,"c":4}]`)
	})
	t.Run("a value the parser refuses is its error, and nothing is written", func(t *testing.T) {
		pgtest.Exec(t, superDSN, "select repr.reset()")
		before := snapshot(t, "repr.todos")
		e := s.do(t, "POST", "/todos", `{"id":5,"name":"bad","label_color":"#zz"}`).expectError(t, 400, "22P02")
		if e["message"] != `"z" is not a valid hexadecimal digit` {
			t.Errorf("message %v", e["message"])
		}
		if after := snapshot(t, "repr.todos"); after != before {
			t.Errorf("todos changed: %s", after)
		}
	})
	t.Run("a function's rows are formatted", func(t *testing.T) {
		pgtest.Exec(t, superDSN, "select repr.reset()")
		res := s.do(t, "GET", "/rpc/todos_colored?c=256", "")
		res.expectStatus(t, 200)
		res.expectBody(t, `[{"id":2,"name":"Essay","label_color":"#000100"}]`)
	})
	t.Run("a function's arguments take no representation, as in PostgREST", func(t *testing.T) {
		e := s.do(t, "GET", "/rpc/todos_colored?c=%23000100", "").expectError(t, 400, "22P02")
		if e["message"] != `invalid input syntax for type integer: "#000100"` {
			t.Errorf("message %v", e["message"])
		}
	})
}
