package read

import (
	"net/http"
	"testing"
)

// TestAggregates runs count, sum, avg, min and max, grouped by the other
// selected fields, at the top level and inside embeds.
func TestAggregates(t *testing.T) {
	s := startServer(t)
	runBodyCases(t, s, []bodyCase{
		{
			name: "count() counts the rows of each group, in the enum's order",
			path: "/tasks?select=status,count()&order=status",
			want: `[
				{"status":"todo","count":12},{"status":"in_progress","count":12},{"status":"review","count":12},
				{"status":"done","count":12},{"status":"cancelled","count":12}]`,
		},
		{
			name: "a null grouping key is a group of its own",
			path: "/projects?select=client_id,count()&order=client_id",
			want: `[
				{"client_id":1,"count":2},{"client_id":2,"count":2},{"client_id":3,"count":2},
				{"client_id":4,"count":1},{"client_id":5,"count":1},{"client_id":6,"count":1},
				{"client_id":7,"count":1},{"client_id":null,"count":2}]`,
		},
		{
			name: "without grouping fields an aggregate is one row",
			path: "/tasks?select=count()&status=eq.done",
			want: `[{"count":12}]`,
		},
		{
			name: "aggregates over no rows are one row of zero and nulls",
			path: "/tasks?select=count(),estimate_hours.sum()&project_id=eq.10",
			want: `[{"count":0,"sum":null}]`,
		},
		{
			name: "count of a column skips nulls, and aliases name the aggregates",
			path: "/projects?select=with_budget:budget.count(),all:count()",
			want: `[{"with_budget":10,"all":12}]`,
		},
		{
			name: "sum, avg, min and max per group skip nulls",
			path: "/tasks?select=project_id,estimate_hours.sum(),estimate_hours.avg(),priority.min(),priority.max()&project_id=eq.2",
			want: `[{"project_id":2,"sum":30.5,"avg":6.1,"min":1,"max":4}]`,
		},
		{
			name: "several aggregates share the grouping by status",
			path: "/orders?select=status,count(),total.sum(),total.max()&order=status",
			want: `[
				{"status":"cancelled","count":1,"sum":89.90,"max":89.90},
				{"status":"delivered","count":3,"sum":1191.85,"max":687.97},
				{"status":"paid","count":3,"sum":1487.00,"max":1187.00},
				{"status":"pending","count":2,"sum":288.93,"max":208.99},
				{"status":"shipped","count":3,"sum":1445.80,"max":607.90}]`,
		},
		{
			name: "a cast after the aggregate casts its result",
			path: "/projects?select=total:budget.sum()::text,mean:budget.avg()::int",
			want: `[{"total":"1715000.49","mean":171500}]`,
		},
		{
			name: "a cast before the aggregate casts its input",
			path: "/projects?select=budget::int.sum()",
			want: `[{"sum":1715001}]`,
		},
		{
			name: "an average cast to int rounds per group",
			path: "/tasks?select=project_id,estimate_hours.avg()::int&project_id=lte.2&order=project_id",
			want: `[{"project_id":1,"avg":4},{"project_id":2,"avg":6}]`,
		},
		{
			name: "min and max work on text and dates",
			path: "/clients?select=name.min(),name.max(),latest:created_at.max()&country=eq.US",
			want: `[{"min":"Acme Corp","max":"Stark Industries (Holdings)","latest":"2023-06-30T23:59:59+00:00"}]`,
		},
		{
			name: "min and max of dates across a table",
			path: "/projects?select=started_on.min(),due_on.max()",
			want: `[{"min":"1999-01-04","max":"2024-12-20"}]`,
		},
		{
			name: "count() inside an embed counts each parent's children",
			path: "/clients?select=id,projects(count())&id=in.(1,4,8)&order=id",
			want: `[{"id":1,"projects":[{"count":2}]},{"id":4,"projects":[{"count":1}]},{"id":8,"projects":[{"count":0}]}]`,
		},
		{
			name: "count without parentheses inside an embed counts the children too",
			path: "/clients?select=id,projects(count)&id=in.(1,8)&order=id",
			want: `[{"id":1,"projects":[{"count":2}]},{"id":8,"projects":[{"count":0}]}]`,
		},
		{
			name: "sum and max inside an embed aggregate each parent's children",
			path: "/clients?select=id,projects(budget.sum(),budget.max())&id=in.(1,8)&order=id",
			want: `[{"id":1,"projects":[{"sum":370000.00,"max":250000.00}]},{"id":8,"projects":[{"sum":null,"max":null}]}]`,
		},
		{
			name: "an aggregate inside an embed groups by the embed's other fields",
			path: "/projects?select=id,tasks(status,count())&id=eq.11&tasks.order=status",
			want: `[{"id":11,"tasks":[
				{"status":"todo","count":2},{"status":"in_progress","count":1},{"status":"review","count":1},
				{"status":"done","count":1},{"status":"cancelled","count":1}]}]`,
		},
		{
			name: "an aggregate two levels down counts per grandchild level",
			path: "/clients?select=id,projects(id,tasks(count()))&id=eq.1&projects.order=id",
			want: `[{"id":1,"projects":[{"id":1,"tasks":[{"count":6}]},{"id":2,"tasks":[{"count":6}]}]}]`,
		},
		{
			name: "a to-one embed is a grouping key of the parent's aggregate",
			path: "/orders?select=user_id,total.sum(),users(username)&user_id=in.(1,2)&order=user_id",
			want: `[{"user_id":1,"sum":1415.76,"users":{"username":"alice"}},{"user_id":2,"sum":749.00,"users":{"username":"bob"}}]`,
		},
		{
			name: "a spread's columns are grouping keys of the parent's aggregate",
			path: "/tasks?select=count(),...projects(archived)&order=projects(archived)",
			want: `[{"count":54,"archived":false},{"count":6,"archived":true}]`,
		},
		{
			name: "a sum groups by a spread column, ordered by it",
			path: "/orders?select=total.sum(),...users(username)&user_id=in.(1,2)&order=users(username)",
			want: `[{"sum":1415.76,"username":"alice"},{"sum":749.00,"username":"bob"}]`,
		},
		{
			name: "a spread column through a composite key groups, with a null group for lines without an invoice",
			path: "/invoice_lines?select=quantity.sum(),...invoices(currency)&order=invoices(currency)",
			want: `[{"sum":223.50,"currency":"EUR"},{"sum":1.00,"currency":"GBP"},{"sum":14.00,"currency":"USD"},{"sum":1.00,"currency":null}]`,
		},
		{
			name: "an !inner embed selecting nothing restricts the rows counted",
			path: "/tasks?select=count(),users!inner()&users.is_admin=is.true",
			want: `[{"count":12}]`,
		},
	})
}

// TestAggregatesDisabled checks that db_aggregates_enabled false refuses
// aggregate functions everywhere with PGRST123.
func TestAggregatesDisabled(t *testing.T) {
	s := startServer(t, "db_aggregates_enabled false")
	const refused = `{"code":"PGRST123","message":"Use of aggregate functions is not allowed","details":null,"hint":null}`
	runErrorCases(t, s, []errorCase{
		{name: "count() is refused", path: "/tasks?select=count()", status: http.StatusBadRequest, want: refused},
		{name: "sum() with a grouping column is refused", path: "/tasks?select=project_id,priority.sum()", status: http.StatusBadRequest, want: refused},
		{name: "a cast aggregate is refused", path: "/projects?select=budget.avg()::int", status: http.StatusBadRequest, want: refused},
		{name: "an aggregate inside an embed is refused", path: "/clients?select=id,projects(count())", status: http.StatusBadRequest, want: refused},
	})
	runBodyCases(t, s, []bodyCase{
		{
			name: "count without parentheses is a column reference and still counts",
			path: "/clients?select=id,projects(count)&id=in.(1,8)&order=id",
			want: `[{"id":1,"projects":[{"count":2}]},{"id":8,"projects":[{"count":0}]}]`,
		},
		{
			name: "plain reads are unaffected",
			path: "/clients?select=id,projects(id)&id=eq.4",
			want: `[{"id":4,"projects":[{"id":6}]}]`,
		},
	})
}
