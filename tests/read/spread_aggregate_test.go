package read

import (
	"reflect"
	"sort"
	"strconv"
	"testing"
)

// TestSpreadAggregates applies an aggregate inside a to-one spread to the
// rows of the level above it, grouped by what else that level selects, as
// PostgREST does ("Aggregates in To-One Spreads").
func TestSpreadAggregates(t *testing.T) {
	s := startServer(t)
	runSQLCases(t, s, []sqlCase{
		{
			name: "sum of the spread's column per group of the parent",
			path: "/tasks?select=status,...projects(total:budget.sum())&order=status",
			sql: `select t.status, sum(p.budget) as total from api.tasks t left join api.projects p on p.id = t.project_id
				group by t.status order by t.status`,
		},
		{
			name: "count() in the spread counts the parent's rows",
			path: "/tasks?select=project_id,...projects(count())&order=project_id",
			sql:  `select project_id, count(*) as count from api.tasks group by project_id order by project_id`,
		},
		{
			name: "the aggregate's cast and the value's cast",
			path: "/tasks?select=project_id,...projects(b:budget::int.max()::text)&order=project_id&project_id=lte.3",
			sql: `select t.project_id, max(p.budget::int)::text as b from api.tasks t join api.projects p on p.id = t.project_id
				where t.project_id <= 3 group by t.project_id order by t.project_id`,
		},
		{
			name: "an aggregate inside an embed's to-one spread groups the embed's rows",
			path: "/projects?select=id,tasks(...users(karma.sum()))&id=eq.1",
			sql: `select 1 as id, json_build_array(json_build_object('sum', sum(u.karma))) as tasks
				from api.tasks t left join api.users u on u.id = t.assignee_id where t.project_id = 1`,
		},
	})
	for _, c := range []sqlCase{
		{
			name: "other columns of the spread are grouping keys",
			path: "/tasks?select=...projects(client_id,budget.max())",
			sql: `select p.client_id, max(p.budget) as max from api.tasks t left join api.projects p on p.id = t.project_id
				group by p.client_id`,
		},
		{
			name: "an aggregate in a nested spread reaches the first level that is not a to-one spread",
			path: "/tasks?select=...projects(...clients(country,tasks:count()))",
			sql: `select c.country, count(*) as tasks from api.tasks t left join api.projects p on p.id = t.project_id
				left join api.clients c on c.id = p.client_id group by c.country`,
		},
		{
			name: "a to-many spread inside a to-one spread is a grouping key",
			path: "/tasks?select=n:count(),...projects(...users(member:username))&project_id=in.(1,2,3)&projects.users.order=id",
			sql: `select count(*) as n, m.member from api.tasks t left join lateral (
					select coalesce(jsonb_agg(u.username order by u.id), '[]') as member
					from api.users u join api.project_members pm on pm.user_id = u.id where pm.project_id = t.project_id) m on true
				where t.project_id in (1, 2, 3) group by m.member`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, want := sortedJSON(rows(t, s.Get(t, c.path))), sortedJSON(sqlRows(t, c.sql))
			if len(want) < 2 {
				t.Fatalf("the expected rows are too few to show grouping: %v", want)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("rows\n got %v\nwant %v", got, want)
			}
		})
	}
}

// sortedJSON is rows as sorted JSON texts, for results in no set order.
func sortedJSON(rows []map[string]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = compactJSON(r)
	}
	sort.Strings(out)
	return out
}

// TestSpreadAggregatesCounted: an exact count of rows grouped through a
// spread counts the groups.
func TestSpreadAggregatesCounted(t *testing.T) {
	s := startServer(t)
	res := s.Get(t, "/tasks?select=...projects(client_id,count())", "Prefer", "count=exact")
	want := sqlRows(t, `select count(distinct p.client_id) + (count(*) filter (where p.client_id is null) > 0)::int as n
		from api.tasks t join api.projects p on p.id = t.project_id`)
	got := rows(t, res)
	n := int(want[0]["n"].(float64))
	if len(got) != n {
		t.Fatalf("%d groups, want %d: %s", len(got), n, compactJSON(got))
	}
	if cr := res.Header.Get("Content-Range"); cr != "0-"+strconv.Itoa(n-1)+"/"+strconv.Itoa(n) {
		t.Errorf("Content-Range %q, want the %d groups counted", cr, n)
	}
}
