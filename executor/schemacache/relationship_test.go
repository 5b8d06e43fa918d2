package schemacache

import (
	"maps"
	"slices"
	"testing"
)

// lookupCatalog: projects reference clients, which a view also shows;
// tasks join users through users_tasks.
func lookupCatalog() *Catalog {
	return &Catalog{
		Schemas: []string{"api"},
		Relations: []*Relation{
			table("clients", "id"), table("projects", "id", "client_id"), view("clients_v", "cid"),
			table("users", "id"), table("tasks", "id"), table("users_tasks", "user_id", "task_id"),
		},
		Keys: []Key{pk("clients", "id"), pk("projects", "id"), pk("users", "id"), pk("tasks", "id"),
			pk("users_tasks", "user_id", "task_id")},
		ForeignKeys: []ForeignKey{
			fk("projects_client_id_fkey", "projects", "clients", "client_id=id"),
			fk("users_tasks_user_id_fkey", "users_tasks", "users", "user_id=id"),
			fk("users_tasks_task_id_fkey", "users_tasks", "tasks", "task_id=id"),
		},
		ViewColumns: []ViewColumn{viewCol("clients_v", "cid", "clients", "id")},
	}
}

func TestFindRelationshipsRules(t *testing.T) {
	c := Build(lookupCatalog())
	tests := []struct {
		name           string
		from, to, hint string
		want           []string
	}{
		{"the constraint as target names a table", "projects", "projects_client_id_fkey", "",
			[]string{"M2O projects -> clients projects_client_id_fkey (client_id=id)"}},
		{"the column as target names a table, never a view", "projects", "client_id", "",
			[]string{"M2O projects -> clients projects_client_id_fkey (client_id=id)"}},
		{"a view is found by its name", "projects", "clients_v", "",
			[]string{"M2O projects -> clients_v projects_client_id_fkey (client_id=cid) [foreign-view]"}},
		{"a hint narrows a view by constraint", "projects", "clients_v", "projects_client_id_fkey",
			[]string{"M2O projects -> clients_v projects_client_id_fkey (client_id=cid) [foreign-view]"}},
		{"a hint narrows by the referenced column", "projects", "clients_v", "cid",
			[]string{"M2O projects -> clients_v projects_client_id_fkey (client_id=cid) [foreign-view]"}},
		{"a hint never replaces the target", "projects", "client_id", "projects_client_id_fkey", nil},
		{"the junction as hint", "users", "tasks", "users_tasks",
			[]string{"M2M users -> tasks via users_tasks users_tasks_user_id_fkey (id=user_id) users_tasks_task_id_fkey (id=task_id)"}},
		{"a junction's constraint is no hint for many-to-many", "users", "tasks", "users_tasks_task_id_fkey", nil},
		{"the junction as target is the one-to-many to it", "users", "users_tasks", "",
			[]string{"O2M users -> users_tasks users_tasks_user_id_fkey (id=user_id)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := describeAll(c.FindRelationships("api", tt.from, tt.to, tt.hint))
			if !slices.Equal(got, tt.want) {
				t.Errorf("FindRelationships(api, %s, %s, %q):\n got %q\nwant %q", tt.from, tt.to, tt.hint, got, tt.want)
			}
		})
	}
}

func TestDescribeAndHintName(t *testing.T) {
	c := Build(lookupCatalog())
	tests := []struct {
		from, to string
		describe map[string]string
		hint     string
	}{
		{"projects", "clients", map[string]string{
			"cardinality":  "many-to-one",
			"embedding":    "projects with clients",
			"relationship": "projects_client_id_fkey using projects(client_id) and clients(id)",
		}, "clients!projects_client_id_fkey"},
		{"clients", "projects", map[string]string{
			"cardinality":  "one-to-many",
			"embedding":    "clients with projects",
			"relationship": "projects_client_id_fkey using clients(id) and projects(client_id)",
		}, "projects!projects_client_id_fkey"},
		{"users", "tasks", map[string]string{
			"cardinality":  "many-to-many",
			"embedding":    "users with tasks",
			"relationship": "users_tasks using users_tasks_user_id_fkey(user_id) and users_tasks_task_id_fkey(task_id)",
		}, "tasks!users_tasks"},
	}
	for _, tt := range tests {
		rels := c.FindRelationships("api", tt.from, tt.to, "")
		if len(rels) != 1 {
			t.Fatalf("%s -> %s: %q", tt.from, tt.to, describeAll(rels))
		}
		if got := rels[0].Describe(); !maps.Equal(got, tt.describe) {
			t.Errorf("%s -> %s: Describe() = %q, want %q", tt.from, tt.to, got, tt.describe)
		}
		if got := rels[0].HintName(); got != tt.hint {
			t.Errorf("%s -> %s: HintName() = %q, want %q", tt.from, tt.to, got, tt.hint)
		}
	}
}

func TestComputedRelationshipsNeedTheOriginsSchema(t *testing.T) {
	cat := lookupCatalog()
	cat.Schemas = []string{"api", "api2"}
	cat.Functions = []*Function{{
		Schema: "api2", Name: "open_tasks", Params: []Param{{Type: "api.users"}}, ArgRelation: qn("users"),
		Returns: Return{Set: true, Shape: ReturnsComposite, RelationSchema: "api", RelationName: "tasks"},
	}}
	c := Build(cat)
	if got := c.FindRelationships("api", "users", "open_tasks", ""); len(got) != 0 {
		t.Errorf("a function of another schema was found: %q", describeAll(got))
	}
	if got := describeAll(c.Relationships("api", "users")); !slices.Contains(got, "computed users -> tasks open_tasks") {
		t.Errorf("Relationships(api, users) = %q, lacks the computed relationship", got)
	}
}

func TestCompareRelationshipsFollowsPostgREST(t *testing.T) {
	a, b := qn("a"), qn("b")
	rels := []*Relationship{
		{Table: a, ForeignTable: b, Cardinality: Computed, Function: &Function{Schema: "api", Name: "f"}},
		{Table: a, ForeignTable: b, Cardinality: M2M, Junction: &Junction{Table: qn("j")}},
		{Table: a, ForeignTable: b, Cardinality: O2O, Constraint: "x"},
		{Table: a, ForeignTable: b, Cardinality: M2O, Constraint: "y"},
		{Table: a, ForeignTable: b, Cardinality: M2O, Constraint: "x", ForeignTableIsView: true},
		{Table: a, ForeignTable: b, Cardinality: M2O, Constraint: "x"},
		{Table: a, ForeignTable: b, Cardinality: O2M, Constraint: "z"},
		{Table: a, ForeignTable: a, Cardinality: O2M, Constraint: "s", IsSelf: true},
	}
	slices.SortFunc(rels, compareRelationships)
	want := []string{
		"O2M a -> a s () [self]",
		"O2M a -> b z ()",
		"M2O a -> b x ()",
		"M2O a -> b x () [foreign-view]",
		"M2O a -> b y ()",
		"O2O a -> b x ()",
		"M2M a -> b via j  ()  ()",
		"computed a -> b f",
	}
	if got := describeAll(rels); !slices.Equal(got, want) {
		t.Errorf("sorted:\n got %q\nwant %q", got, want)
	}
}

func TestExpand(t *testing.T) {
	got := expand([][]string{{"a1", "a2"}, {"b"}, {"c1", "c2"}})
	want := [][]string{{"a1", "b", "c1"}, {"a1", "b", "c2"}, {"a2", "b", "c1"}, {"a2", "b", "c2"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("expand = %q, want %q", got, want)
	}
}
