package schemacache

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestTheCacheLoadsWithoutPrivileges checks the premise of the fixture:
// the role that loaded it cannot use schema api, nor read its tables.
func TestTheCacheLoadsWithoutPrivileges(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fixtureDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var usage, read bool
	err = conn.QueryRow(ctx, `select has_schema_privilege($1, 'api', 'usage'),
		has_table_privilege($1, 'private.secrets', 'select')`, authenticator).Scan(&usage, &read)
	if err != nil {
		t.Fatal(err)
	}
	if usage || read {
		t.Errorf("%s has usage on api: %v, select on private.secrets: %v", authenticator, usage, read)
	}
	if len(fixture.Relations["api"]) == 0 {
		t.Error("the cache holds no relations of api")
	}
}

func TestRelationshipsFromATable(t *testing.T) {
	tests := []struct {
		table string
		want  []string
	}{
		{"projects", []string{
			"M2O projects -> client_names projects_client_id_fkey (client_id=id) [foreign-view]",
			"M2O projects -> clients projects_client_id_fkey (client_id=id)",
			"M2O projects -> clients_view projects_client_id_fkey (client_id=client_key) [foreign-view]",
			"O2O projects -> project_details project_details_project_id_fkey (id=project_id) [parent]",
			"O2M projects -> tasks tasks_project_id_fkey (id=project_id)",
			"computed projects -> clients main_client to-one",
		}},
		{"clients", []string{
			"O2M clients -> projects projects_client_id_fkey (id=client_id)",
			"O2M clients -> projects_nested projects_client_id_fkey (id=cid) [foreign-view]",
			"O2M clients -> projects_twice projects_client_id_fkey (id=client_id) [foreign-view]",
			"O2M clients -> projects_twice projects_client_id_fkey (id=other_client_id) [foreign-view]",
			"O2M clients -> projects_view projects_client_id_fkey (id=client_id) [foreign-view]",
		}},
		{"project_details", []string{
			"O2O project_details -> projects project_details_project_id_fkey (project_id=id)",
			"O2O project_details -> projects_nested project_details_project_id_fkey (project_id=pid) [foreign-view]",
			"O2O project_details -> projects_twice project_details_project_id_fkey (project_id=id) [foreign-view]",
			"O2O project_details -> projects_view project_details_project_id_fkey (project_id=id) [foreign-view]",
		}},
		{"passports", []string{"O2O passports -> people passports_person_id_fkey (person_id=id)"}},
		{"people", []string{"O2O people -> passports passports_person_id_fkey (id=person_id) [parent]"}},
		{"users", []string{
			"O2M users -> follows follows_followed_id_fkey (id=followed_id)",
			"O2M users -> follows follows_follower_id_fkey (id=follower_id)",
			"O2M users -> likes likes_user_id_fkey (id=user_id)",
			"O2M users -> secrets secrets_owner_id_fkey (id=owner_id) [foreign-view]",
			"O2M users -> task_watchers task_watchers_user_id_fkey (id=user_id)",
			"M2M users -> tasks via task_watchers task_watchers_user_id_fkey (id=user_id) task_watchers_task_id_fkey (id=task_id)",
			"M2M users -> tasks via users_tasks users_tasks_user_id_fkey (id=user_id) users_tasks_task_id_fkey (id=task_id)",
			"M2M users -> tasks_view via task_watchers task_watchers_user_id_fkey (id=user_id) task_watchers_task_id_fkey (id=task_id) [foreign-view]",
			"M2M users -> tasks_view via users_tasks users_tasks_user_id_fkey (id=user_id) users_tasks_task_id_fkey (id=task_id) [foreign-view]",
			"M2M users -> users via follows follows_followed_id_fkey (id=followed_id) follows_follower_id_fkey (id=follower_id) [self]",
			"M2M users -> users via follows follows_follower_id_fkey (id=follower_id) follows_followed_id_fkey (id=followed_id) [self]",
			"M2M users -> users_outer via follows follows_followed_id_fkey (id=followed_id) follows_follower_id_fkey (uid=follower_id) [foreign-view]",
			"M2M users -> users_outer via follows follows_follower_id_fkey (id=follower_id) follows_followed_id_fkey (uid=followed_id) [foreign-view]",
			"O2M users -> users_tasks users_tasks_user_id_fkey (id=user_id)",
			"computed users -> tasks all_tasks",
			"computed users -> tasks first_task to-one",
		}},
		{"films", []string{
			"M2M films -> actors via roles roles_film_id_fkey (id=film_id) roles_actor_id_fkey (id=actor_id)",
			"O2M films -> likes likes_film_id_fkey (id=film_id)",
			"O2M films -> roles roles_film_id_fkey (id=film_id)",
		}},
		{"likes", []string{
			"M2O likes -> films likes_film_id_fkey (film_id=id)",
			"M2O likes -> users likes_user_id_fkey (user_id=id)",
			"M2O likes -> users_outer likes_user_id_fkey (user_id=uid) [foreign-view]",
		}},
		{"employees", []string{
			"O2M employees -> employees employees_manager_id_fkey (id=manager_id) [self]",
			"M2O employees -> employees employees_manager_id_fkey (manager_id=id) [self]",
		}},
		{"invoice_lines", []string{
			"M2O invoice_lines -> invoices invoice_lines_invoice_fkey (region=region, invoice_num=num)",
		}},
		{"invoices", []string{
			"O2M invoices -> invoice_lines invoice_lines_invoice_fkey (region=region, num=invoice_num)",
		}},
		{"orders", []string{
			"M2O orders -> addresses billing (billing_address_id=id)",
			"M2O orders -> addresses shipping (shipping_address_id=id)",
		}},
		// Views: to tables, from tables, to views, through a view over a
		// view, with a column shown twice, and a materialized view.
		{"projects_view", []string{
			"M2O projects_view -> client_names projects_client_id_fkey (client_id=id) [table-view foreign-view]",
			"M2O projects_view -> clients projects_client_id_fkey (client_id=id) [table-view]",
			"M2O projects_view -> clients_view projects_client_id_fkey (client_id=client_key) [table-view foreign-view]",
			"O2O projects_view -> project_details project_details_project_id_fkey (id=project_id) [table-view parent]",
			"O2M projects_view -> tasks tasks_project_id_fkey (id=project_id) [table-view]",
		}},
		{"projects_nested", []string{
			"M2O projects_nested -> client_names projects_client_id_fkey (cid=id) [table-view foreign-view]",
			"M2O projects_nested -> clients projects_client_id_fkey (cid=id) [table-view]",
			"M2O projects_nested -> clients_view projects_client_id_fkey (cid=client_key) [table-view foreign-view]",
			"O2O projects_nested -> project_details project_details_project_id_fkey (pid=project_id) [table-view parent]",
			"O2M projects_nested -> tasks tasks_project_id_fkey (pid=project_id) [table-view]",
		}},
		{"clients_view", []string{
			"O2M clients_view -> projects projects_client_id_fkey (client_key=client_id) [table-view]",
			"O2M clients_view -> projects_nested projects_client_id_fkey (client_key=cid) [table-view foreign-view]",
			"O2M clients_view -> projects_twice projects_client_id_fkey (client_key=client_id) [table-view foreign-view]",
			"O2M clients_view -> projects_twice projects_client_id_fkey (client_key=other_client_id) [table-view foreign-view]",
			"O2M clients_view -> projects_view projects_client_id_fkey (client_key=client_id) [table-view foreign-view]",
		}},
		{"client_names", []string{
			"O2M client_names -> projects projects_client_id_fkey (id=client_id) [table-view]",
			"O2M client_names -> projects_nested projects_client_id_fkey (id=cid) [table-view foreign-view]",
			"O2M client_names -> projects_twice projects_client_id_fkey (id=client_id) [table-view foreign-view]",
			"O2M client_names -> projects_twice projects_client_id_fkey (id=other_client_id) [table-view foreign-view]",
			"O2M client_names -> projects_view projects_client_id_fkey (id=client_id) [table-view foreign-view]",
		}},
		{"tasks_view", []string{
			"O2M tasks_view -> task_watchers task_watchers_task_id_fkey (id=task_id) [table-view]",
			"M2M tasks_view -> users via task_watchers task_watchers_task_id_fkey (id=task_id) task_watchers_user_id_fkey (id=user_id) [table-view]",
			"M2M tasks_view -> users via users_tasks users_tasks_task_id_fkey (id=task_id) users_tasks_user_id_fkey (id=user_id) [table-view]",
			"M2M tasks_view -> users_outer via task_watchers task_watchers_task_id_fkey (id=task_id) task_watchers_user_id_fkey (uid=user_id) [table-view foreign-view]",
			"M2M tasks_view -> users_outer via users_tasks users_tasks_task_id_fkey (id=task_id) users_tasks_user_id_fkey (uid=user_id) [table-view foreign-view]",
			"O2M tasks_view -> users_tasks users_tasks_task_id_fkey (id=task_id) [table-view]",
		}},
		// Only plain column references trace to a base column.
		{"expression_view", nil},
		// Tables of the unexposed schema: reachable through views only.
		{"secrets", []string{
			"M2O secrets -> users secrets_owner_id_fkey (owner_id=id) [table-view]",
			"M2O secrets -> users_outer secrets_owner_id_fkey (owner_id=uid) [table-view foreign-view]",
		}},
		{"things", []string{"M2O things -> kinds things_kind_id_fkey (kind_id=id) [foreign-view]"}},
		{"kinds", []string{"O2M kinds -> things things_kind_id_fkey (id=kind_id) [table-view]"}},
		// A view over an unexposed view over an exposed table.
		{"users_outer", []string{
			"O2M users_outer -> follows follows_followed_id_fkey (uid=followed_id) [table-view]",
			"O2M users_outer -> follows follows_follower_id_fkey (uid=follower_id) [table-view]",
			"O2M users_outer -> likes likes_user_id_fkey (uid=user_id) [table-view]",
			"O2M users_outer -> secrets secrets_owner_id_fkey (uid=owner_id) [table-view foreign-view]",
			"O2M users_outer -> task_watchers task_watchers_user_id_fkey (uid=user_id) [table-view]",
			"M2M users_outer -> tasks via task_watchers task_watchers_user_id_fkey (uid=user_id) task_watchers_task_id_fkey (id=task_id) [table-view]",
			"M2M users_outer -> tasks via users_tasks users_tasks_user_id_fkey (uid=user_id) users_tasks_task_id_fkey (id=task_id) [table-view]",
			"M2M users_outer -> tasks_view via task_watchers task_watchers_user_id_fkey (uid=user_id) task_watchers_task_id_fkey (id=task_id) [table-view foreign-view]",
			"M2M users_outer -> tasks_view via users_tasks users_tasks_user_id_fkey (uid=user_id) users_tasks_task_id_fkey (id=task_id) [table-view foreign-view]",
			"M2M users_outer -> users via follows follows_followed_id_fkey (uid=followed_id) follows_follower_id_fkey (id=follower_id) [table-view]",
			"M2M users_outer -> users via follows follows_follower_id_fkey (uid=follower_id) follows_followed_id_fkey (id=followed_id) [table-view]",
			"M2M users_outer -> users_outer via follows follows_followed_id_fkey (uid=followed_id) follows_follower_id_fkey (uid=follower_id) [self table-view foreign-view]",
			"M2M users_outer -> users_outer via follows follows_follower_id_fkey (uid=follower_id) follows_followed_id_fkey (uid=followed_id) [self table-view foreign-view]",
			"O2M users_outer -> users_tasks users_tasks_user_id_fkey (uid=user_id) [table-view]",
		}},
		// The computed relationship named parents replaces the foreign key
		// to parents; the other direction keeps it.
		{"kids", []string{"computed kids -> parents parents to-one"}},
		{"parents", []string{"O2M parents -> kids kids_parent_id_fkey (id=parent_id)"}},
	}
	for _, tt := range tests {
		t.Run("from "+tt.table, func(t *testing.T) {
			got := summaries(fixture.Relationships("api", tt.table))
			if !slices.Equal(got, tt.want) {
				t.Errorf("relationships from %s:\n got %q\nwant %q", tt.table, got, tt.want)
			}
		})
	}
}

func TestRelationshipsStayInExposedSchemas(t *testing.T) {
	if got := fixture.Relationships("private", "secrets"); len(got) != 0 {
		t.Errorf("an unexposed table has relationships: %q", summaries(got))
	}
	for _, table := range []string{"users", "things"} {
		rels := fixture.Relationships("api", table)
		if len(rels) == 0 {
			t.Errorf("%s has no relationships to check", table)
		}
		for _, r := range rels {
			if r.ForeignTable.Schema != "api" || r.Junction != nil && r.Junction.Table.Schema != "api" {
				t.Errorf("%s reaches outside the exposed schema: %s", table, summary(r))
			}
		}
	}
}

func TestFindRelationships(t *testing.T) {
	tests := []struct {
		name           string
		from, to, hint string
		want           []string
	}{
		{"a table finds its parent by name", "projects", "clients", "",
			[]string{"M2O projects -> clients projects_client_id_fkey (client_id=id)"}},
		{"a table finds its children by name", "clients", "projects", "",
			[]string{"O2M clients -> projects projects_client_id_fkey (id=client_id)"}},
		{"the foreign key column names the parent", "projects", "client_id", "",
			[]string{"M2O projects -> clients projects_client_id_fkey (client_id=id)"}},
		{"the constraint names the parent", "projects", "projects_client_id_fkey", "",
			[]string{"M2O projects -> clients projects_client_id_fkey (client_id=id)"}},
		{"one-to-one from the referenced side", "projects", "project_details", "",
			[]string{"O2O projects -> project_details project_details_project_id_fkey (id=project_id) [parent]"}},
		{"one-to-one through a unique column", "people", "passports", "",
			[]string{"O2O people -> passports passports_person_id_fkey (id=person_id) [parent]"}},
		{"a composite foreign key", "invoice_lines", "invoices", "",
			[]string{"M2O invoice_lines -> invoices invoice_lines_invoice_fkey (region=region, invoice_num=num)"}},
		{"a composite key has no column name", "invoice_lines", "region", "", nil},
		{"many-to-many through a junction with extra columns", "films", "actors", "",
			[]string{"M2M films -> actors via roles roles_film_id_fkey (id=film_id) roles_actor_id_fkey (id=actor_id)"}},
		{"a table whose keys are not in its primary key is no junction", "users", "films", "", nil},
		{"two junctions are ambiguous", "users", "tasks", "", []string{
			"M2M users -> tasks via task_watchers task_watchers_user_id_fkey (id=user_id) task_watchers_task_id_fkey (id=task_id)",
			"M2M users -> tasks via users_tasks users_tasks_user_id_fkey (id=user_id) users_tasks_task_id_fkey (id=task_id)",
		}},
		{"the junction's name picks one", "users", "tasks", "users_tasks", []string{
			"M2M users -> tasks via users_tasks users_tasks_user_id_fkey (id=user_id) users_tasks_task_id_fkey (id=task_id)",
		}},
		{"two foreign keys to one table are ambiguous", "orders", "addresses", "", []string{
			"M2O orders -> addresses billing (billing_address_id=id)",
			"M2O orders -> addresses shipping (shipping_address_id=id)",
		}},
		{"a constraint hint picks one", "orders", "addresses", "billing",
			[]string{"M2O orders -> addresses billing (billing_address_id=id)"}},
		{"a column hint picks one", "orders", "addresses", "shipping_address_id",
			[]string{"M2O orders -> addresses shipping (shipping_address_id=id)"}},
		{"a hint from the other side picks one", "addresses", "orders", "billing_address_id",
			[]string{"O2M addresses -> orders billing (id=billing_address_id)"}},
		{"a referenced column shared by both stays ambiguous", "addresses", "orders", "id", []string{
			"O2M addresses -> orders billing (id=billing_address_id)",
			"O2M addresses -> orders shipping (id=shipping_address_id)",
		}},
		{"a hint matching nothing finds nothing", "orders", "addresses", "nope", nil},
		{"self: the table's name is the children", "employees", "employees", "",
			[]string{"O2M employees -> employees employees_manager_id_fkey (id=manager_id) [self]"}},
		{"self: the foreign key column is the parent", "employees", "manager_id", "",
			[]string{"M2O employees -> employees employees_manager_id_fkey (manager_id=id) [self]"}},
		{"self: a column hint is the children", "employees", "employees", "manager_id",
			[]string{"O2M employees -> employees employees_manager_id_fkey (id=manager_id) [self]"}},
		{"self: a constraint hint finds nothing, as in PostgREST", "employees", "employees", "employees_manager_id_fkey", nil},
		{"self many-to-many cannot be embedded, as in PostgREST", "users", "users", "", nil},
		{"a view finds a table", "projects_view", "clients", "",
			[]string{"M2O projects_view -> clients projects_client_id_fkey (client_id=id) [table-view]"}},
		{"a table finds a view", "clients", "projects_view", "",
			[]string{"O2M clients -> projects_view projects_client_id_fkey (id=client_id) [foreign-view]"}},
		{"a view finds a view", "projects_view", "clients_view", "",
			[]string{"M2O projects_view -> clients_view projects_client_id_fkey (client_id=client_key) [table-view foreign-view]"}},
		{"a view over a view finds a table", "projects_nested", "clients", "",
			[]string{"M2O projects_nested -> clients projects_client_id_fkey (cid=id) [table-view]"}},
		{"a column as target finds no view", "projects", "client_id", "",
			[]string{"M2O projects -> clients projects_client_id_fkey (client_id=id)"}},
		{"a column shown twice is ambiguous", "projects_twice", "clients", "", []string{
			"M2O projects_twice -> clients projects_client_id_fkey (client_id=id) [table-view]",
			"M2O projects_twice -> clients projects_client_id_fkey (other_client_id=id) [table-view]",
		}},
		{"the view column picks one", "projects_twice", "clients", "other_client_id",
			[]string{"M2O projects_twice -> clients projects_client_id_fkey (other_client_id=id) [table-view]"}},
		{"a view over an unexposed table", "secrets", "users", "",
			[]string{"M2O secrets -> users secrets_owner_id_fkey (owner_id=id) [table-view]"}},
		{"a table to a view over an unexposed table", "things", "kinds", "",
			[]string{"M2O things -> kinds things_kind_id_fkey (kind_id=id) [foreign-view]"}},
		{"a view through an unexposed view", "users_outer", "tasks", "users_tasks", []string{
			"M2M users_outer -> tasks via users_tasks users_tasks_user_id_fkey (uid=user_id) users_tasks_task_id_fkey (id=task_id) [table-view]",
		}},
		{"a computed relationship by its function's name", "users", "first_task", "",
			[]string{"computed users -> tasks first_task to-one"}},
		{"a set-returning computed relationship", "users", "all_tasks", "",
			[]string{"computed users -> tasks all_tasks"}},
		{"a computed relationship overrides the table of its name", "kids", "parents", "",
			[]string{"computed kids -> parents parents to-one"}},
		{"an unknown target finds nothing", "projects", "nope", "", nil},
		{"an unknown origin finds nothing", "nope", "clients", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summaries(fixture.FindRelationships("api", tt.from, tt.to, tt.hint))
			if !slices.Equal(got, tt.want) {
				t.Errorf("FindRelationships(api, %s, %s, %q):\n got %q\nwant %q", tt.from, tt.to, tt.hint, got, tt.want)
			}
		})
	}
	t.Run("another schema finds nothing", func(t *testing.T) {
		if got := fixture.FindRelationships("private", "projects", "clients", ""); len(got) != 0 {
			t.Errorf("got %q", summaries(got))
		}
	})
}

// TestDescribeAmbiguity checks the PGRST201 details and hint pieces
// against PostgREST's: the orders/addresses case is the one its
// documentation shows.
func TestDescribeAmbiguity(t *testing.T) {
	tests := []struct {
		name           string
		from, to, hint string
		details        []map[string]string
		hints          []string
	}{
		{"many-to-one", "orders", "addresses", "",
			[]map[string]string{
				{"cardinality": "many-to-one", "embedding": "orders with addresses",
					"relationship": "billing using orders(billing_address_id) and addresses(id)"},
				{"cardinality": "many-to-one", "embedding": "orders with addresses",
					"relationship": "shipping using orders(shipping_address_id) and addresses(id)"},
			},
			[]string{"addresses!billing", "addresses!shipping"}},
		{"one-to-many", "addresses", "orders", "",
			[]map[string]string{
				{"cardinality": "one-to-many", "embedding": "addresses with orders",
					"relationship": "billing using addresses(id) and orders(billing_address_id)"},
				{"cardinality": "one-to-many", "embedding": "addresses with orders",
					"relationship": "shipping using addresses(id) and orders(shipping_address_id)"},
			},
			[]string{"orders!billing", "orders!shipping"}},
		{"many-to-many", "users", "tasks", "",
			[]map[string]string{
				{"cardinality": "many-to-many", "embedding": "users with tasks",
					"relationship": "task_watchers using task_watchers_user_id_fkey(user_id) and task_watchers_task_id_fkey(task_id)"},
				{"cardinality": "many-to-many", "embedding": "users with tasks",
					"relationship": "users_tasks using users_tasks_user_id_fkey(user_id) and users_tasks_task_id_fkey(task_id)"},
			},
			[]string{"tasks!task_watchers", "tasks!users_tasks"}},
		{"composite many-to-one", "invoice_lines", "invoices", "",
			[]map[string]string{
				{"cardinality": "many-to-one", "embedding": "invoice_lines with invoices",
					"relationship": "invoice_lines_invoice_fkey using invoice_lines(region, invoice_num) and invoices(region, num)"},
			},
			[]string{"invoices!invoice_lines_invoice_fkey"}},
		{"one-to-one", "passports", "people", "",
			[]map[string]string{
				{"cardinality": "one-to-one", "embedding": "passports with people",
					"relationship": "passports_person_id_fkey using passports(person_id) and people(id)"},
			},
			[]string{"people!passports_person_id_fkey"}},
		{"computed", "users", "first_task", "",
			[]map[string]string{{}},
			[]string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rels := fixture.FindRelationships("api", tt.from, tt.to, tt.hint)
			if len(rels) != len(tt.details) {
				t.Fatalf("found %q, want %d", summaries(rels), len(tt.details))
			}
			for i, r := range rels {
				if got := r.Describe(); !mapsEqual(got, tt.details[i]) {
					t.Errorf("Describe() = %q, want %q", got, tt.details[i])
				}
				if got := r.HintName(); got != tt.hints[i] {
					t.Errorf("HintName() = %q, want %q", got, tt.hints[i])
				}
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestToOne(t *testing.T) {
	tests := []struct {
		from, to string
		want     bool
	}{
		{"projects", "clients", true},         // many-to-one
		{"clients", "projects", false},        // one-to-many
		{"projects", "project_details", true}, // one-to-one
		{"films", "actors", false},            // many-to-many
		{"projects", "main_client", true},     // computed, not SETOF
		{"users", "first_task", true},         // computed, SETOF ... ROWS 1
		{"users", "all_tasks", false},         // computed, SETOF
	}
	for _, tt := range tests {
		rels := fixture.FindRelationships("api", tt.from, tt.to, "")
		if len(rels) != 1 {
			t.Errorf("%s -> %s: found %q", tt.from, tt.to, summaries(rels))
			continue
		}
		if got := rels[0].ToOne(); got != tt.want {
			t.Errorf("%s -> %s: ToOne() = %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
}

func TestComputedColumns(t *testing.T) {
	tests := []struct {
		table, name string
		want        bool
	}{
		{"users", "full_name", true},
		{"users", "task_count", true},
		{"projects", "main_client", true}, // one composite value
		{"users", "all_tasks", false},     // SETOF
		{"users", "tags", false},          // SETOF text
		{"users", "touch", false},         // void
		{"users", "two_args", false},      // two parameters
		{"users", "secret_name", false},   // in an unexposed schema
		{"users", "name", false},          // a column, not a function
		{"projects", "full_name", false},  // another table's
	}
	for _, tt := range tests {
		f, ok := fixture.ComputedColumn("api", tt.table, tt.name)
		if ok != tt.want {
			t.Errorf("ComputedColumn(api, %s, %s) = %v, want %v", tt.table, tt.name, ok, tt.want)
			continue
		}
		if ok && (f.Name != tt.name || f.Schema != "api" || f.ArgRelation.Name != tt.table) {
			t.Errorf("ComputedColumn(api, %s, %s) = %+v", tt.table, tt.name, f)
		}
	}
}

func TestKeys(t *testing.T) {
	tests := []struct {
		relation       string
		primary        []string
		unique         [][]string
		viewPrimaryKey []string
	}{
		{"projects", []string{"id"}, nil, nil},
		{"invoices", []string{"region", "num"}, nil, nil},
		{"passports", []string{"id"}, [][]string{{"person_id"}}, nil},
		{"task_watchers", []string{"task_id", "user_id"}, nil, nil},
		{"projects_view", nil, nil, []string{"id"}},
		{"clients_view", nil, nil, []string{"client_key"}},
		{"projects_nested", nil, nil, []string{"pid"}},
		{"projects_twice", nil, nil, []string{"id"}},
		{"secrets", nil, nil, []string{"id"}}, // over an unexposed table
		{"users_outer", nil, nil, []string{"uid"}},
		{"client_names", nil, nil, []string{"id"}}, // materialized
		{"expression_view", nil, nil, nil},
	}
	for _, tt := range tests {
		r, ok := fixture.Relation("api", tt.relation)
		if !ok {
			t.Errorf("no relation %s", tt.relation)
			continue
		}
		if !slices.Equal(r.PrimaryKey, tt.primary) {
			t.Errorf("%s: PrimaryKey = %q, want %q", tt.relation, r.PrimaryKey, tt.primary)
		}
		if !slices.EqualFunc(r.UniqueKeys, tt.unique, slices.Equal) {
			t.Errorf("%s: UniqueKeys = %q, want %q", tt.relation, r.UniqueKeys, tt.unique)
		}
		if !slices.Equal(r.ViewPrimaryKey, tt.viewPrimaryKey) {
			t.Errorf("%s: ViewPrimaryKey = %q, want %q", tt.relation, r.ViewPrimaryKey, tt.viewPrimaryKey)
		}
	}
}
