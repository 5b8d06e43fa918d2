package e2e

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// castAttacks are select parameters that tried to turn a cast into SQL
// reading the database's settings, app.jwt_secret among them, as they are
// written in the URL.
var castAttacks = []string{
	// The report's own: spaces after a type end the cast and start SQL.
	strings.ReplaceAll("title::text array as x from announcements where false union all "+
		"select setconfig from pg_db_role_setting union all select null", " ", "%20"),
	// The same with + for spaces, as forms encode them.
	"title::text+array+as+x+from+announcements+where+false+union+all+select+setconfig+from+pg_db_role_setting+union+all+select+null",
	// Dollar quoting, a comment and a second statement.
	url.QueryEscape("title::text$$ as x from pg_db_role_setting $$"),
	url.QueryEscape("title::text[] from (select setconfig from pg_db_role_setting) s --"),
	url.QueryEscape("title::text; select setconfig from pg_db_role_setting"),
	url.QueryEscape(`title::"text" as x from pg_db_role_setting`),
}

func TestSelectCastCannotInjectSQL(t *testing.T) {
	// The secret is there for the attack to read: anonymous requests'
	// role may select pg_db_role_setting, so only pgrest stands between.
	conn := authConnect(t)
	ctx := context.Background()
	var readable bool
	err := conn.QueryRow(ctx, `select pg_catalog.has_table_privilege('web_anon', 'pg_catalog.pg_db_role_setting', 'select')
		and exists (select from pg_db_role_setting where pg_catalog.array_to_string(setconfig, ',') like '%' || $1 || '%')`,
		jwtSecret).Scan(&readable)
	if err != nil {
		t.Fatal(err)
	}
	if !readable {
		t.Fatal("web_anon cannot read app.jwt_secret in pg_db_role_setting: the attack would prove nothing")
	}

	s := startServer(t)
	for _, sel := range castAttacks {
		t.Run(sel, func(t *testing.T) {
			res := s.get(t, "/announcements?select="+sel)
			e := res.expectError(t, http.StatusBadRequest, "PGRST100")
			if !strings.HasPrefix(e["message"].(string), `"failed to parse select parameter (`) {
				t.Errorf("message %q", e["message"])
			}
			if strings.Contains(string(res.Body), jwtSecret) || strings.Contains(string(res.Body), "app.jwt_secret") {
				t.Errorf("the response holds the secret: %s", res.Body)
			}
		})
	}

	t.Run("a pseudo-type is refused before the database", func(t *testing.T) {
		s.get(t, "/announcements?select=title::unknown").Expect(t, http.StatusBadRequest,
			`{"code":"PGRST100","message":"failed to parse select parameter (::unknown)",
			  "details":"cannot cast to unknown: it is a pseudo-type, which has no values of its own","hint":null}`, nil)
	})
	t.Run("a name that starts with a digit is refused", func(t *testing.T) {
		e := s.get(t, "/announcements?select=title::1text").expectError(t, http.StatusBadRequest, "PGRST100")
		if e["message"] != "failed to parse select parameter (::1text)" {
			t.Errorf("message %q", e["message"])
		}
	})
	t.Run("a type that does not exist is the database's 400", func(t *testing.T) {
		e := s.get(t, "/announcements?select=title::nosuchtype").expectError(t, http.StatusBadRequest, "42704")
		if e["message"] != `type "nosuchtype" does not exist` {
			t.Errorf("message %q", e["message"])
		}
	})
}

func TestSelectCastsToTypeNamesWork(t *testing.T) {
	s := startServer(t, "db_aggregates_enabled true")
	tests := []struct{ name, query, want string }{
		{"int and text", "select=id::text,n:id::int,title::text&order=id",
			`[{"id":"1","n":1,"title":"Hello"},{"id":"2","n":2,"title":"World"}]`},
		{"keywords in any case", "select=id::BIGINT,t:title::varchar&id=eq.1", `[{"id":1,"t":"Hello"}]`},
		{"an array type", "select=nums::int[],t:nums::text[]&id=eq.1", `[{"nums":[1,2],"t":["1","2"]}]`},
		{"a schema-qualified type", "select=title::public.announcement_label,t:title::pg_catalog.text&id=eq.2",
			`[{"title":"World","t":"World"}]`},
		{"an aggregate's cast", "select=count()::int,total:id::numeric.sum()::text", `[{"count":2,"total":"3"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.get(t, "/announcements?"+tt.query).Expect(t, http.StatusOK, tt.want, nil)
		})
	}
}
