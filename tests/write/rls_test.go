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

	cases := []struct {
		name, method, path, body string
		user                     bool
		prefer                   string
		status                   int
		rangeHeader              string
		want                     string
		rows                     string // every note afterwards
	}{
		{
			name:   "webuser inserts a note it owns by default",
			method: "POST", path: "/notes?select=id,owner,body", body: `{"body":"mine"}`, user: true,
			prefer: "return=representation", status: 201, rangeHeader: "*/*",
			want: `[{"id":3,"owner":"webuser","body":"mine"}]`,
			rows: `[{"id":1,"owner":"web_anon","body":"anon note"},{"id":2,"owner":"webuser","body":"user note"},{"id":3,"owner":"webuser","body":"mine"}]`,
		},
		{
			name:   "anonymous inserts a note it owns by default",
			method: "POST", path: "/notes", body: `{"body":"anon again"}`,
			status: 201, rangeHeader: "*/*",
			rows: `[{"id":1,"owner":"web_anon","body":"anon note"},{"id":2,"owner":"webuser","body":"user note"},{"id":3,"owner":"web_anon","body":"anon again"}]`,
		},
		{
			name:   "webuser updating someone else's note updates no row",
			method: "PATCH", path: "/notes?id=eq.1", body: `{"body":"hacked"}`, user: true,
			status: 204, rangeHeader: "*/*",
			rows: `[{"id":1,"owner":"web_anon","body":"anon note"},{"id":2,"owner":"webuser","body":"user note"}]`,
		},
		{
			name:   "webuser updating every note updates only its own",
			method: "PATCH", path: "/notes?select=id,body", body: `{"body":"edited"}`, user: true,
			prefer: "return=representation", status: 200, rangeHeader: "0-0/*",
			want: `[{"id":2,"body":"edited"}]`,
			rows: `[{"id":1,"owner":"web_anon","body":"anon note"},{"id":2,"owner":"webuser","body":"edited"}]`,
		},
		{
			name:   "webuser deleting someone else's note deletes no row",
			method: "DELETE", path: "/notes?id=eq.1", user: true,
			prefer: "count=exact", status: 204, rangeHeader: "*/0",
			rows: `[{"id":1,"owner":"web_anon","body":"anon note"},{"id":2,"owner":"webuser","body":"user note"}]`,
		},
		{
			name:   "anonymous deleting every note deletes only its own",
			method: "DELETE", path: "/notes",
			prefer: "count=exact", status: 204, rangeHeader: "*/1",
			rows: `[{"id":2,"owner":"webuser","body":"user note"}]`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reset(t)
			var headers []string
			if c.user {
				headers = append(headers, asUser(t)...)
			}
			if c.prefer != "" {
				headers = append(headers, "Prefer", c.prefer)
			}
			res := s.do(t, c.method, c.path, c.body, headers...)
			res.expectStatus(t, c.status)
			res.expectHeader(t, "Content-Range", c.rangeHeader)
			if c.want == "" {
				res.expectNoBody(t)
			} else {
				res.expectBody(t, c.want)
			}
			expectRows(t, "select * from api.notes order by id", c.rows)
		})
	}
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
