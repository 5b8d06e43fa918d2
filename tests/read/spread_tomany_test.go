package read

import (
	"net/http"
	"reflect"
	"testing"
)

// sqlCase is a request and a query, run as the superuser, whose rows the
// response must equal.
type sqlCase struct {
	name string
	path string
	sql  string
}

func runSQLCases(t *testing.T, s *server, cases []sqlCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := rows(t, s.Get(t, c.path))
			want := sqlRows(t, c.sql)
			if len(want) == 0 {
				t.Fatal("the expected rows are empty: the case tests nothing")
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("rows\n got %s\nwant %s", compactJSON(got), compactJSON(want))
			}
		})
	}
}

// TestSpreadToMany spreads one-to-many and many-to-many embeds: each
// column becomes an array in the parent row, all arrays in the same order.
func TestSpreadToMany(t *testing.T) {
	s := startServer(t)
	runBodyCases(t, s, []bodyCase{
		{
			name: "each column becomes an array, correlated, in the embed's order",
			path: "/clients?select=name,...projects(code,budget)&id=in.(1,2)&order=id&projects.order=id",
			want: `[
				{"name":"Acme Corp","code":["ACME-WEB","ACME-APP"],"budget":[120000.00,250000.00]},
				{"name":"Globex","code":` + codesOf(t, 2) + `,"budget":` + budgetsOf(t, 2) + `}]`,
		},
		{
			name: "aliases name the arrays",
			path: "/clients?select=client:name,...projects(codes:code)&id=eq.1&projects.order=code.desc",
			want: `[{"client":"Acme Corp","codes":["ACME-WEB","ACME-APP"]}]`,
		},
		{
			name: "a parent without rows gets empty arrays, not nulls",
			path: "/clients?select=id,...projects(code,name)&id=in.(8,9)&order=id",
			want: `[{"id":8,"code":[],"name":[]},{"id":9,"code":[],"name":[]}]`,
		},
		{
			name: "is.null on the spread keeps the parents without rows, with empty arrays",
			path: "/clients?select=id,...projects(code)&projects=is.null&order=id",
			want: `[{"id":8,"code":[]},{"id":9,"code":[]}]`,
		},
		{
			name: "limit and offset inside the spread shorten every array alike",
			path: "/clients?select=id,...projects(code)&id=eq.1&projects.order=id.desc&projects.limit=1&projects.offset=1",
			want: `[{"id":1,"code":["ACME-WEB"]}]`,
		},
		{
			name: "a filter inside the spread keeps the matching rows",
			path: "/clients?select=id,...projects(code)&id=eq.1&projects.code=eq.ACME-APP",
			want: `[{"id":1,"code":["ACME-APP"]}]`,
		},
		{
			name: "!inner drops the parents whose spread has no row",
			path: "/clients?select=id,...projects!inner(code)&projects.code=eq.ACME-APP",
			want: `[{"id":1,"code":["ACME-APP"]}]`,
		},
		{
			name: "a many-to-many spread goes through the junction",
			path: "/projects?select=code,...users(username)&id=eq.1&users.order=id",
			want: `[{"code":"ACME-WEB","username":["alice","bob","carol"]}]`,
		},
		{
			name: "a to-one spread inside a to-many spread adds its columns as arrays",
			path: "/clients?select=id,...projects(code,...clients(owner:name))&id=eq.1&projects.order=id",
			want: `[{"id":1,"code":["ACME-WEB","ACME-APP"],"owner":["Acme Corp","Acme Corp"]}]`,
		},
		{
			name: "a to-one embed inside a to-many spread becomes an array of objects",
			path: "/clients?select=id,...projects(code,owner:clients(name))&id=eq.1&projects.order=id",
			want: `[{"id":1,"code":["ACME-WEB","ACME-APP"],"owner":[{"name":"Acme Corp"},{"name":"Acme Corp"}]}]`,
		},
		{
			name: "a to-many spread inside a to-one spread lifts its arrays",
			path: "/tasks?select=id,...projects(code,...users(member:username))&id=eq.1&projects.users.order=id",
			want: `[{"id":1,"code":"ACME-WEB","member":["alice","bob","carol"]}]`,
		},
		{
			name: "a to-many spread inside an embed adds arrays to each embedded object",
			path: "/clients?select=id,projects(code,...users(member:username))&id=eq.1&projects.order=id&projects.users.order=id",
			want: `[{"id":1,"projects":[
				{"code":"ACME-WEB","member":["alice","bob","carol"]},
				{"code":"ACME-APP","member":` + membersOf(t, 2) + `}]}]`,
		},
		{
			name: "a spread selecting nothing adds nothing",
			path: "/clients?select=id,...projects()&id=eq.1",
			want: `[{"id":1}]`,
		},
	})

	t.Run("beside an aggregate, the arrays are grouping keys", func(t *testing.T) {
		got := sortedJSON(rows(t, s.Get(t, "/clients?select=n:count(),...projects(code)&id=in.(1,8,9)&projects.order=id")))
		want := []string{`{"code":["ACME-WEB","ACME-APP"],"n":1}`, `{"code":[],"n":2}`}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rows %v, want %v", got, want)
		}
	})

	runSQLCases(t, s, []sqlCase{
		{
			name: "a star spreads every column as an array",
			path: "/clients?select=id,...projects(*)&id=in.(1,3)&order=id&projects.order=id",
			sql: `select c.id, coalesce(pg_catalog.json_agg(p.id order by p.id) filter (where p.id is not null), '[]') as id,
				coalesce(json_agg(p.client_id order by p.id) filter (where p.id is not null), '[]') as client_id,
				coalesce(json_agg(p.code order by p.id) filter (where p.id is not null), '[]') as code,
				coalesce(json_agg(p.name order by p.id) filter (where p.id is not null), '[]') as name,
				coalesce(json_agg(p.budget order by p.id) filter (where p.id is not null), '[]') as budget,
				coalesce(json_agg(p.started_on order by p.id) filter (where p.id is not null), '[]') as started_on,
				coalesce(json_agg(p.due_on order by p.id) filter (where p.id is not null), '[]') as due_on,
				coalesce(json_agg(p.archived order by p.id) filter (where p.id is not null), '[]') as archived,
				coalesce(json_agg(p.settings order by p.id) filter (where p.id is not null), '[]') as settings,
				coalesce(json_agg(p.created_at order by p.id) filter (where p.id is not null), '[]') as created_at
				from api.clients c left join api.projects p on p.client_id = c.id
				where c.id in (1, 3) group by c.id order by c.id`,
		},
		{
			name: "a to-many spread inside a to-many spread gives one array per row",
			path: "/clients?select=id,...projects(code,...tasks(task:id))&id=in.(1,2)&order=id&projects.order=id&projects.tasks.order=id",
			sql: `select c.id, json_agg(p.code order by p.id) as code,
				json_agg(coalesce((select json_agg(t.id order by t.id) from api.tasks t where t.project_id = p.id), '[]') order by p.id) as task
				from api.clients c join api.projects p on p.client_id = c.id
				where c.id in (1, 2) group by c.id order by c.id`,
		},
		{
			name: "a spread of a set-returning computed relationship",
			path: "/projects?select=id,...top_tasks(tid:id,prio:priority)&id=in.(1,2)&order=id&top_tasks.order=id",
			sql: `select p.id, coalesce((select json_agg(t.id order by t.id) from api.top_tasks(p) t), '[]') as tid,
				coalesce((select json_agg(t.priority order by t.id) from api.top_tasks(p) t), '[]') as prio
				from api.projects p where p.id in (1, 2) order by p.id`,
		},
		{
			name: "a to-many embed inside a to-many spread gives one array of objects per row",
			path: "/clients?select=id,...projects(code,tasks(id))&id=eq.1&projects.order=id&projects.tasks.order=id",
			sql: `select c.id, json_agg(p.code order by p.id) as code,
				json_agg(coalesce((select json_agg(json_build_object('id', t.id) order by t.id) from api.tasks t where t.project_id = p.id), '[]') order by p.id) as tasks
				from api.clients c join api.projects p on p.client_id = c.id
				where c.id = 1 group by c.id`,
		},
	})
}

// codesOf, budgetsOf and membersOf are a project's codes and budgets of a
// client, and a project's members, as JSON arrays in id order.
func codesOf(t *testing.T, client int) string {
	return sqlJSONArray(t, `select json_agg(code order by id) as v from api.projects where client_id = $1`, client)
}

func budgetsOf(t *testing.T, client int) string {
	return sqlJSONArray(t, `select json_agg(budget order by id) as v from api.projects where client_id = $1`, client)
}

func membersOf(t *testing.T, project int) string {
	return sqlJSONArray(t, `select json_agg(u.username order by u.id) as v from api.users u
		join api.project_members m on m.user_id = u.id where m.project_id = $1`, project)
}

func sqlJSONArray(t *testing.T, query string, arg int) string {
	t.Helper()
	rs := sqlRows(t, query, arg)
	if len(rs) != 1 || rs[0]["v"] == nil {
		t.Fatalf("%s: no value", query)
	}
	return compactJSON(rs[0]["v"])
}

// TestSpreadToManyErrors is what PostgREST refuses of to-many spreads.
func TestSpreadToManyErrors(t *testing.T) {
	t.Run("aggregates inside a to-many spread", func(t *testing.T) {
		s := startServer(t)
		runErrorCases(t, s, []errorCase{
			{
				name:   "count() in a one-to-many spread",
				path:   "/clients?select=id,...projects(count())",
				status: http.StatusBadRequest,
				want:   toManySpreadAggregate,
			},
			{
				name:   "sum() beside a column in a many-to-many spread",
				path:   "/projects?select=id,...users(username,karma.sum())",
				status: http.StatusBadRequest,
				want:   toManySpreadAggregate,
			},
			{
				name:   "an aggregate of a to-one spread nested in a to-many spread",
				path:   "/clients?select=id,...projects(code,...clients(id.count()))",
				status: http.StatusBadRequest,
				want:   toManySpreadAggregate,
			},
		})
	})
	t.Run("with aggregates disabled", func(t *testing.T) {
		s := startServer(t, "-db_aggregates_enabled")
		// To-many spreads need no aggregate functions, as in PostgREST's
		// base configuration; an aggregate inside one is refused first
		// for being an aggregate.
		runBodyCases(t, s, []bodyCase{
			{
				name: "a one-to-many spread",
				path: "/clients?select=name,...projects(code)&id=eq.1&projects.order=id",
				want: `[{"name":"Acme Corp","code":["ACME-WEB","ACME-APP"]}]`,
			},
			{
				name: "a many-to-many spread",
				path: "/projects?select=code,...users(username)&id=eq.1&users.order=id",
				want: `[{"code":"ACME-WEB","username":["alice","bob","carol"]}]`,
			},
			{
				name: "a to-one spread",
				path: "/projects?select=id,...clients(name)&id=eq.1",
				want: `[{"id":1,"name":"Acme Corp"}]`,
			},
		})
		expectErrorBody(t, s.Get(t, "/clients?select=id,...projects(count())"), http.StatusBadRequest,
			`{"code":"PGRST123","message":"Use of aggregate functions is not allowed","details":null,"hint":null}`)
	})
}

const toManySpreadAggregate = `{"code":"PGRST127","message":"Feature not implemented",
	"details":"Aggregates are not implemented for one-to-many or many-to-many spreads.","hint":null}`
