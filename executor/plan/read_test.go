package plan_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// testCache is a schema cache made without a database:
//
//	clients 1-n projects 1-n tasks
//	projects n-m users through project_members
//	orders n-1 addresses twice (billing_address_id, shipping_address_id)
//
// users has the computed column full_name, and first_name, a function
// named like a column; projects has the computed relationship open_tasks.
func testCache() *schemacache.Cache {
	qn, table, pk, fk := apiName, tablesOf("api", "text"), apiPrimaryKey, apiForeignKey
	scalar := func(name, arg string) *schemacache.Function {
		return &schemacache.Function{Schema: "api", Name: name, Params: []schemacache.Param{{Type: "api." + arg}},
			ArgRelation: qn(arg), Returns: schemacache.Return{Shape: schemacache.ReturnsScalar, Type: "text"}}
	}
	return schemacache.Build(&schemacache.Catalog{
		Schemas: []string{"api"},
		Relations: []*schemacache.Relation{
			table("clients", "id", "name"),
			table("projects", "id", "name", "client_id"),
			table("tasks", "id", "name", "project_id"),
			table("users", "id", "first_name", "last_name"),
			table("project_members", "project_id", "user_id"),
			table("addresses", "id", "city"),
			table("orders", "id", "billing_address_id", "shipping_address_id"),
		},
		Keys: []schemacache.Key{
			pk("clients", "id"), pk("projects", "id"), pk("tasks", "id"), pk("users", "id"),
			pk("project_members", "project_id", "user_id"), pk("addresses", "id"), pk("orders", "id"),
		},
		ForeignKeys: []schemacache.ForeignKey{
			fk("projects", "client_id", "clients"),
			fk("tasks", "project_id", "projects"),
			fk("project_members", "project_id", "projects"),
			fk("project_members", "user_id", "users"),
			fk("orders", "billing_address_id", "addresses"),
			fk("orders", "shipping_address_id", "addresses"),
		},
		Functions: []*schemacache.Function{
			scalar("full_name", "users"),
			scalar("first_name", "users"),
			{
				Schema: "api", Name: "open_tasks", Params: []schemacache.Param{{Type: "api.projects"}},
				ArgRelation: qn("projects"), Rows: 1000,
				Returns: schemacache.Return{Shape: schemacache.ReturnsComposite, Set: true, RelationSchema: "api", RelationName: "tasks"},
			},
		},
	})
}

// build parses and plans a read of target, "relation?query".
func build(t *testing.T, cache *schemacache.Cache, target string, opts plan.ReadOptions) (*plan.Read, *apierr.Error) {
	t.Helper()
	name, rawQuery, _ := strings.Cut(target, "?")
	rel, ok := cache.Relation("api", name)
	if !ok {
		t.Fatalf("no relation %s", name)
	}
	q, aerr := apirequest.ParseQuery(rawQuery)
	if aerr != nil {
		t.Fatalf("ParseQuery(%q): %s %s", rawQuery, aerr.Code, aerr.Message)
	}
	return plan.BuildRead(cache, rel, q, opts)
}

// mustBuild is build that fails t on a planning error.
func mustBuild(t *testing.T, cache *schemacache.Cache, target string) *plan.Read {
	t.Helper()
	p, aerr := build(t, cache, target, plan.ReadOptions{})
	if aerr != nil {
		t.Fatalf("%s: %s %s", target, aerr.Code, aerr.Message)
	}
	return p
}

func TestBuildReadErrors(t *testing.T) {
	cache := testCache()
	aggregates := plan.ReadOptions{AggregatesEnabled: true}
	tests := []struct {
		name   string
		target string
		opts   plan.ReadOptions
		want   *apierr.Error
	}{
		{
			name:   "PGRST200 suggests the closest relationship",
			target: "projects?select=id,client(name)",
			want: &apierr.Error{Status: http.StatusBadRequest, Code: "PGRST200",
				Message: "Could not find a relationship between 'projects' and 'client' in the schema cache",
				Details: "Searched for a foreign key relationship between 'projects' and 'client' in the schema 'api', but no matches were found.",
				Hint:    "Perhaps you meant 'clients' instead of 'client'."},
		},
		{
			// PostgREST names a computed relationship by the table its
			// function returns.
			name:   "PGRST200 suggests a computed relationship by the table it returns",
			target: "projects?select=id,open_task(name)",
			want: &apierr.Error{Status: http.StatusBadRequest, Code: "PGRST200",
				Message: "Could not find a relationship between 'projects' and 'open_task' in the schema cache",
				Details: "Searched for a foreign key relationship between 'projects' and 'open_task' in the schema 'api', but no matches were found.",
				Hint:    "Perhaps you meant 'tasks' instead of 'open_task'."},
		},
		{
			name:   "PGRST200 without a similar name has no hint",
			target: "projects?select=id,invoices(*)",
			want: &apierr.Error{Status: http.StatusBadRequest, Code: "PGRST200",
				Message: "Could not find a relationship between 'projects' and 'invoices' in the schema cache",
				Details: "Searched for a foreign key relationship between 'projects' and 'invoices' in the schema 'api', but no matches were found."},
		},
		{
			name:   "PGRST200 names the hint that matched nothing, and suggests nothing for an existing name",
			target: "projects?select=id,clients!projects_owner_fkey(name)",
			want: &apierr.Error{Status: http.StatusBadRequest, Code: "PGRST200",
				Message: "Could not find a relationship between 'projects' and 'clients' in the schema cache",
				Details: "Searched for a foreign key relationship between 'projects' and 'clients' using the hint 'projects_owner_fkey' in the schema 'api', but no matches were found."},
		},
		{
			name:   "PGRST200 in a nested embed names its own parent",
			target: "clients?select=projects(taks(*))",
			want: &apierr.Error{Status: http.StatusBadRequest, Code: "PGRST200",
				Message: "Could not find a relationship between 'projects' and 'taks' in the schema cache",
				Details: "Searched for a foreign key relationship between 'projects' and 'taks' in the schema 'api', but no matches were found.",
				Hint:    "Perhaps you meant 'tasks' instead of 'taks'."},
		},
		{
			name:   "PGRST201 lists both foreign keys and how to choose",
			target: "orders?select=id,addresses(city)",
			want: &apierr.Error{Status: http.StatusMultipleChoices, Code: "PGRST201",
				Message: "Could not embed because more than one relationship was found for 'orders' and 'addresses'",
				Details: []map[string]string{
					{
						"cardinality":  "many-to-one",
						"embedding":    "orders with addresses",
						"relationship": "orders_billing_address_id_fkey using orders(billing_address_id) and addresses(id)",
					},
					{
						"cardinality":  "many-to-one",
						"embedding":    "orders with addresses",
						"relationship": "orders_shipping_address_id_fkey using orders(shipping_address_id) and addresses(id)",
					},
				},
				Hint: "Try changing 'addresses' to one of the following: 'addresses!orders_billing_address_id_fkey', " +
					"'addresses!orders_shipping_address_id_fkey'. Find the desired relationship in the 'details' key."},
		},
		{
			name:   "PGRST201 from the referenced side lists the one-to-many relationships",
			target: "addresses?select=id,orders(id)",
			want: &apierr.Error{Status: http.StatusMultipleChoices, Code: "PGRST201",
				Message: "Could not embed because more than one relationship was found for 'addresses' and 'orders'",
				Details: []map[string]string{
					{
						"cardinality":  "one-to-many",
						"embedding":    "addresses with orders",
						"relationship": "orders_billing_address_id_fkey using addresses(id) and orders(billing_address_id)",
					},
					{
						"cardinality":  "one-to-many",
						"embedding":    "addresses with orders",
						"relationship": "orders_shipping_address_id_fkey using addresses(id) and orders(shipping_address_id)",
					},
				},
				Hint: "Try changing 'orders' to one of the following: 'orders!orders_billing_address_id_fkey', " +
					"'orders!orders_shipping_address_id_fkey'. Find the desired relationship in the 'details' key."},
		},
		{
			name:   "PGRST108 for a filter on an embed not selected",
			target: "projects?select=id&tasks.name=eq.x",
			want:   apierr.NotEmbedded("tasks"),
		},
		{
			name:   "PGRST108 for a logic tree on an embed not selected",
			target: "projects?select=id,clients(name)&tasks.or=(id.eq.1,id.eq.2)",
			want:   apierr.NotEmbedded("tasks"),
		},
		{
			name:   "PGRST108 for an order on an embed not selected",
			target: "projects?select=id&tasks.order=id",
			want:   apierr.NotEmbedded("tasks"),
		},
		{
			name:   "PGRST108 for a limit on an embed not selected",
			target: "projects?select=id&tasks.limit=1",
			want:   apierr.NotEmbedded("tasks"),
		},
		{
			name:   "PGRST108 for a related order on an embed not selected",
			target: "projects?select=id&order=clients(name)",
			want:   apierr.NotEmbedded("clients"),
		},
		{
			name:   "PGRST108 names the missing level of a nested path",
			target: "clients?select=projects(id)&projects.tasks.name=eq.x",
			want:   apierr.NotEmbedded("tasks"),
		},
		{
			// Without legacy target names (opts are zero here); the
			// error then names the alias, as PostgREST's does.
			name:   "PGRST108 when the path names the relation of an aliased embed",
			target: "projects?select=id,todo:tasks(id)&tasks.name=eq.x",
			want:   apierr.NotEmbeddedAlias("tasks", "todo"),
		},
		{
			name:   "PGRST118 for a related order on a to-many embed",
			target: "projects?select=id,tasks(name)&order=tasks(name)",
			want: &apierr.Error{Status: http.StatusBadRequest, Code: "PGRST118",
				Message: "A related order on 'tasks' is not possible",
				Details: "'projects' and 'tasks' do not form a many-to-one or one-to-one relationship"},
		},
		{
			name:   "a spread of a to-many embed needs no aggregates",
			target: "projects?select=id,...tasks(name)",
		},
		{
			name:   "a spread of a many-to-many embed needs no aggregates",
			target: "projects?select=id,...users(first_name)",
		},
		{
			name:   "PGRST123 for an aggregate in a to-many spread with aggregates disabled",
			target: "projects?select=...tasks(id.count())",
			want:   apierr.AggregatesNotAllowed(),
		},
		{
			name:   "PGRST127 for an aggregate in a to-many spread with aggregates enabled",
			target: "projects?select=...tasks(id.count())",
			opts:   aggregates,
			want:   apierr.NotImplemented("Aggregates are not implemented for one-to-many or many-to-many spreads."),
		},
		{
			name:   "PGRST123 for count() with aggregates disabled",
			target: "projects?select=count()",
			want: &apierr.Error{Status: http.StatusBadRequest, Code: "PGRST123",
				Message: "Use of aggregate functions is not allowed"},
		},
		{
			name:   "PGRST123 for an aggregate in an embed",
			target: "clients?select=name,projects(id.max())",
			want:   apierr.AggregatesNotAllowed(),
		},
		{
			name:   "aggregates pass when enabled",
			target: "clients?select=name,count(),projects(id.max())",
			opts:   aggregates,
		},
		{
			name:   "a cast to a pseudo-type is refused",
			target: "clients?select=name::unknown",
			want: &apierr.Error{Status: http.StatusBadRequest, Code: "PGRST100",
				Message: "failed to parse select parameter (::unknown)",
				Details: "cannot cast to unknown: it is a pseudo-type, which has no values of its own"},
		},
		{
			name:   "an aggregate's cast to a pseudo-type is refused",
			target: "clients?select=count()::pg_catalog.record",
			opts:   aggregates,
			want: &apierr.Error{Status: http.StatusBadRequest, Code: "PGRST100",
				Message: "failed to parse select parameter (::pg_catalog.record)",
				Details: "cannot cast to pg_catalog.record: it is a pseudo-type, which has no values of its own"},
		},
		{
			name:   "a cast that is not a type name is refused",
			target: "clients?select=name::1text",
			want: &apierr.Error{Status: http.StatusBadRequest, Code: "PGRST100",
				Message: "failed to parse select parameter (::1text)",
				Details: "1text is not a type name: a cast names a type as letters, digits and _ (not first, at most " +
					"63 of them), optionally after a schema and a dot, then [] per array dimension, as in " +
					"int, text[] or public.mytype"},
		},
		{
			name:   "casts to keywords, arrays and schema-qualified types pass",
			target: "clients?select=id::int,name::text,id::Int[],name::public.mytype,count()::bigint",
			opts:   aggregates,
		},
		{
			name:   "is.null and not.is.null test an embed's presence",
			target: "projects?select=id,clients(id),tasks(id)&clients=is.null&tasks=not.is.null",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := build(t, cache, tt.target, tt.opts)
			if tt.want == nil {
				if got != nil {
					t.Fatalf("got %s %s %v %v, want no error", got.Code, got.Message, got.Details, got.Hint)
				}
				return
			}
			if got == nil {
				t.Fatalf("no error, want %s", tt.want.Code)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("\n got %#v\nwant %#v", *got, *tt.want)
			}
		})
	}
}

func TestBuildReadAmbiguityResolvedByHint(t *testing.T) {
	cache := testCache()
	for _, hint := range []string{"orders_billing_address_id_fkey", "billing_address_id"} {
		p, aerr := build(t, cache, "orders?select=id,addresses!"+hint+"(city)", plan.ReadOptions{})
		if aerr != nil {
			t.Fatalf("hint %s: %s %s", hint, aerr.Code, aerr.Message)
		}
		rs := p.Embeds[0].Relationship
		if rs.Constraint != "orders_billing_address_id_fkey" {
			t.Errorf("hint %s: relationship %s", hint, rs.Constraint)
		}
	}
}

func TestBuildReadResolvesComputedColumns(t *testing.T) {
	cache := testCache()
	p := mustBuild(t, cache,
		"users?select=id,full_name,first_name,nickname,projects(name)&full_name=like.A*&or=(full_name.eq.x,last_name.eq.y)&order=full_name,first_name")
	computed := func(ref plan.ColumnRef) string {
		if ref.Computed == nil {
			return ""
		}
		return ref.Computed.Schema + "." + ref.Computed.Name
	}
	for i, want := range []struct{ column, computed string }{
		{"id", ""},
		{"full_name", "api.full_name"},
		// A column wins over a function of the same name, as in PostgREST.
		{"first_name", ""},
		// An unknown name stays a column, for PostgreSQL to report (42703).
		{"nickname", ""},
	} {
		f := p.Fields[i]
		if f.Ref.Column != want.column || computed(f.Ref) != want.computed || f.Name != want.column {
			t.Errorf("field %d: column %q computed %q name %q, want %q %q", i, f.Ref.Column, computed(f.Ref), f.Name, want.column, want.computed)
		}
	}
	if len(p.Where) != 2 {
		t.Fatalf("%d conditions, want 2", len(p.Where))
	}
	if got := computed(p.Where[0].Filter.Ref); got != "api.full_name" {
		t.Errorf("filter full_name computed %q", got)
	}
	tree := p.Where[1]
	if got := computed(tree.Children[0].Filter.Ref); got != "api.full_name" {
		t.Errorf("logic tree full_name computed %q", got)
	}
	if got := computed(tree.Children[1].Filter.Ref); got != "" {
		t.Errorf("logic tree last_name computed %q", got)
	}
	if got := computed(p.Order[0].Ref); got != "api.full_name" {
		t.Errorf("order full_name computed %q", got)
	}
	if got := computed(p.Order[1].Ref); got != "" {
		t.Errorf("order first_name computed %q", got)
	}

	// Computed columns belong to their relation: full_name is one of
	// users, not of projects.
	p = mustBuild(t, cache, "projects?select=full_name,users(full_name)")
	if got := computed(p.Fields[0].Ref); got != "" {
		t.Errorf("projects.full_name computed %q, want a plain column", got)
	}
	if got := computed(p.Embeds[0].Plan.Fields[0].Ref); got != "api.full_name" {
		t.Errorf("users.full_name in an embed computed %q", got)
	}
}

// TestBuildReadFilterOnEmbedName: is.null and not.is.null on an embed's
// name test the embed's presence; any other filter on that name is a
// filter on the column of that name (a missing one PostgreSQL reports),
// in a logic tree too, as in PostgREST v16.
func TestBuildReadFilterOnEmbedName(t *testing.T) {
	cache := testCache()
	p := mustBuild(t, cache,
		"projects?select=id,clients(id),tasks(id)&clients=is.null&tasks=not.is.null&clients=eq.1&tasks=is.not_null&or=(tasks.in.(1,2),clients.is.true)")
	if len(p.Where) != 5 {
		t.Fatalf("%d conditions, want 5", len(p.Where))
	}
	embedNull := func(c plan.Condition, name string, negated bool) {
		t.Helper()
		if c.EmbedNull == nil || c.EmbedNull.Name != name || c.Negated != negated {
			t.Errorf("condition %+v, want a null test of %s (negated %v)", c, name, negated)
		}
	}
	column := func(c plan.Condition, name, op string) {
		t.Helper()
		if c.EmbedNull != nil || c.Filter == nil || c.Filter.Ref.Column != name || c.Filter.Op != op {
			t.Errorf("condition %+v, want a filter %s on the column %s", c, op, name)
		}
	}
	embedNull(p.Where[0], "clients", false)
	embedNull(p.Where[1], "tasks", true)
	column(p.Where[2], "clients", "eq")
	column(p.Where[3], "tasks", "is")
	column(p.Where[4].Children[0], "tasks", "in")
	column(p.Where[4].Children[1], "clients", "is")
}

// TestBuildReadEmptySelects: an empty select reads every column at the
// root (QuerySpec "empty root select"); an embed selecting no field, even
// through its own embeds, is not shown (QuerySpec "empty embed").
func TestBuildReadEmptySelects(t *testing.T) {
	cache := testCache()
	p := mustBuild(t, cache, "projects?select=")
	if len(p.Fields) != 1 || !p.Fields[0].Ref.Star {
		t.Errorf("select= plans fields %+v, want the star", p.Fields)
	}
	for _, c := range []struct {
		target string
		shown  bool
	}{
		{"clients?select=id,projects()", false},
		{"clients?select=id,projects(tasks())", false},
		{"clients?select=id,projects(tasks(),open_tasks())", false},
		{"clients?select=id,projects(...clients())", false},
		{"clients?select=id,projects(tasks(id))", true},
		{"clients?select=id,projects(tasks(),name)", true},
		{"clients?select=id,projects(...clients(name))", true},
	} {
		if got := mustBuild(t, cache, c.target).Embeds[0].Shown(); got != c.shown {
			t.Errorf("%s: projects shown %v, want %v", c.target, got, c.shown)
		}
	}
}
