package write

import (
	"net/http"
	"testing"
)

// The notes table's policies let a role write only the notes it owns:
// note 1 is web_anon's, note 2 webuser's.
func TestRowLevelSecurityOnWrites(t *testing.T) {
	s := startServer(t)
	rlsError := `{"code":"42501","message":"new row violates row-level security policy for table \"notes\"","details":null,"hint":null}`
	runErrorCases(t, s, []errorCase{
		{name: "anonymous inserting a note owned by someone else is 401 42501", method: "POST", path: "/notes",
			body: `{"owner":"webuser","body":"forged"}`, status: 401, code: "42501", want: rlsError},
		{name: "webuser inserting a note owned by someone else is 403 42501", method: "POST", path: "/notes",
			body: `{"owner":"web_anon","body":"forged"}`, headers: asUser(t), status: 403, code: "42501", want: rlsError},
		{name: "one forbidden row of a bulk insert is 403 42501 and inserts none", method: "POST", path: "/notes",
			body: `[{"owner":"webuser","body":"mine"},{"owner":"web_anon","body":"forged"}]`, headers: asUser(t),
			status: 403, code: "42501", want: rlsError},
		{name: "webuser handing its own note to someone else is 403 42501", method: "PATCH", path: "/notes?id=eq.2",
			body: `{"owner":"web_anon"}`, headers: asUser(t), status: 403, code: "42501", want: rlsError},
		{name: "webuser upserting over someone else's note is 403 42501", method: "PUT", path: "/notes?id=eq.1",
			body: `{"id":1,"owner":"webuser","body":"taken"}`, headers: asUser(t), status: 403, code: "42501"},
	})

	// notes is the query of every note, as the tables afterwards hold them.
	const notes = "select * from api.notes order by id"
	runWriteCases(t, s, "", []writeCase{
		{
			name:   "webuser inserts a note it owns by default",
			method: "POST", path: "/notes?select=id,owner,body", body: `{"body":"mine"}`,
			headers: append(asUser(t), "Prefer", "return=representation"), applied: []string{"return=representation"},
			status: 201, contentRange: "*/*",
			want:  `[{"id":3,"owner":"webuser","body":"mine"}]`,
			table: notes,
			rows:  `[{"id":1,"owner":"web_anon","body":"anon note"},{"id":2,"owner":"webuser","body":"user note"},{"id":3,"owner":"webuser","body":"mine"}]`,
		},
		{
			name:   "anonymous inserts a note it owns by default",
			method: "POST", path: "/notes", body: `{"body":"anon again"}`,
			status: 201, contentRange: "*/*",
			table: notes,
			rows:  `[{"id":1,"owner":"web_anon","body":"anon note"},{"id":2,"owner":"webuser","body":"user note"},{"id":3,"owner":"web_anon","body":"anon again"}]`,
		},
		{
			name:   "webuser updating someone else's note updates no row",
			method: "PATCH", path: "/notes?id=eq.1", body: `{"body":"hacked"}`, headers: asUser(t),
			status: 204, contentRange: "*/*",
			table: notes,
			rows:  `[{"id":1,"owner":"web_anon","body":"anon note"},{"id":2,"owner":"webuser","body":"user note"}]`,
		},
		{
			name:   "webuser updating every note updates only its own",
			method: "PATCH", path: "/notes?select=id,body", body: `{"body":"edited"}`,
			headers: append(asUser(t), "Prefer", "return=representation"), applied: []string{"return=representation"},
			status: 200, contentRange: "0-0/*",
			want:  `[{"id":2,"body":"edited"}]`,
			table: notes,
			rows:  `[{"id":1,"owner":"web_anon","body":"anon note"},{"id":2,"owner":"webuser","body":"edited"}]`,
		},
		{
			name:   "webuser deleting someone else's note deletes no row",
			method: "DELETE", path: "/notes?id=eq.1",
			headers: append(asUser(t), "Prefer", "count=exact"), applied: []string{"count=exact"},
			status: 204, contentRange: "*/0",
			table: notes,
			rows:  `[{"id":1,"owner":"web_anon","body":"anon note"},{"id":2,"owner":"webuser","body":"user note"}]`,
		},
		{
			name:   "anonymous deleting every note deletes only its own",
			method: "DELETE", path: "/notes", headers: []string{"Prefer", "count=exact"}, applied: []string{"count=exact"},
			status: 204, contentRange: "*/1",
			table: notes,
			rows:  `[{"id":2,"owner":"webuser","body":"user note"}]`,
		},
	}, nil)
}

func TestPrivilegesOnWrites(t *testing.T) {
	s := startServer(t)
	t.Run("webuser may insert a category where anonymous may not", func(t *testing.T) {
		reset(t)
		res := s.do(t, http.MethodPost, "/categories?select=id,name", `{"name":"garden"}`,
			append(asUser(t), "Prefer", "return=representation")...)
		res.expectStatus(t, 201)
		res.expectBody(t, `[{"id":3,"name":"garden"}]`)
	})
}
