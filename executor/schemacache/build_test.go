package schemacache

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func qn(name string) QualifiedName {
	if s, n, ok := strings.Cut(name, "."); ok {
		return QualifiedName{s, n}
	}
	return QualifiedName{"api", name}
}

func table(name string, cols ...string) *Relation {
	return relation(name, KindTable, cols...)
}

func view(name string, cols ...string) *Relation {
	return relation(name, KindView, cols...)
}

func relation(name string, kind RelKind, cols ...string) *Relation {
	q := qn(name)
	r := &Relation{Schema: q.Schema, Name: q.Name, Kind: kind}
	for i, c := range cols {
		r.Columns = append(r.Columns, &Column{Name: c, Type: "integer", Position: i + 1})
	}
	return r
}

func fk(constraint, from, to string, cols ...string) ForeignKey {
	k := ForeignKey{Constraint: constraint, Table: qn(from), ForeignTable: qn(to)}
	for _, c := range cols {
		l, f, _ := strings.Cut(c, "=")
		k.Columns = append(k.Columns, [2]string{l, f})
	}
	return k
}

func pk(tbl string, cols ...string) Key {
	return Key{Table: qn(tbl), Constraint: qn(tbl).Name + "_pkey", Primary: true, Columns: cols}
}

func unique(tbl string, cols ...string) Key {
	return Key{Table: qn(tbl), Constraint: qn(tbl).Name + "_" + strings.Join(cols, "_") + "_key", Columns: cols}
}

func viewCol(v, col, tbl, tcol string) ViewColumn {
	return ViewColumn{View: qn(v), Column: col, Table: qn(tbl), TableColumn: tcol}
}

// describe renders a relationship on one line:
// "M2O a -> b a_b_fkey (b_id=id)", "M2M a -> c via j j_a (id=a_id) j_c (id=c_id)",
// "computed a -> b fn", with [self table-view foreign-view parent] flags.
func describe(r *Relationship) string {
	var b strings.Builder
	name := func(q QualifiedName) string {
		if q.Schema == "api" {
			return q.Name
		}
		return q.String()
	}
	pairs := func(ps [][2]string) string {
		s := make([]string, len(ps))
		for i, p := range ps {
			s[i] = p[0] + "=" + p[1]
		}
		return "(" + strings.Join(s, ", ") + ")"
	}
	card := map[Cardinality]string{M2O: "M2O", O2M: "O2M", O2O: "O2O", M2M: "M2M", Computed: "computed"}[r.Cardinality]
	fmt.Fprintf(&b, "%s %s -> %s", card, name(r.Table), name(r.ForeignTable))
	switch r.Cardinality {
	case M2M:
		j := r.Junction
		fmt.Fprintf(&b, " via %s %s %s %s %s", name(j.Table), j.Constraint1, pairs(j.SourceColumns), j.Constraint2, pairs(j.TargetColumns))
	case Computed:
		fmt.Fprintf(&b, " %s", r.Function.Name)
	default:
		fmt.Fprintf(&b, " %s %s", r.Constraint, pairs(r.Columns))
	}
	var flags []string
	for _, f := range []struct {
		on   bool
		name string
	}{{r.IsSelf, "self"}, {r.TableIsView, "table-view"}, {r.ForeignTableIsView, "foreign-view"}, {r.IsParent, "parent"}} {
		if f.on {
			flags = append(flags, f.name)
		}
	}
	if len(flags) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(flags, " "))
	}
	return b.String()
}

func describeAll(rels []*Relationship) []string {
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = describe(r)
	}
	return out
}

func TestBuildDerivesRelationships(t *testing.T) {
	tests := []struct {
		name string
		cat  Catalog
		from string
		want []string
	}{
		{
			name: "a foreign key is many-to-one one way and one-to-many the other",
			cat: Catalog{
				Relations:   []*Relation{table("clients", "id"), table("projects", "id", "client_id")},
				Keys:        []Key{pk("clients", "id"), pk("projects", "id")},
				ForeignKeys: []ForeignKey{fk("projects_client_id_fkey", "projects", "clients", "client_id=id")},
			},
			from: "clients",
			want: []string{"O2M clients -> projects projects_client_id_fkey (id=client_id)"},
		},
		{
			name: "a foreign key whose columns are a unique key, in another order, is one-to-one",
			cat: Catalog{
				Relations: []*Relation{table("a", "x", "y"), table("b", "p", "q")},
				Keys:      []Key{pk("a", "x", "y"), unique("b", "q", "p")},
				ForeignKeys: []ForeignKey{
					fk("b_fkey", "b", "a", "p=x", "q=y"),
				},
			},
			from: "b",
			want: []string{"O2O b -> a b_fkey (p=x, q=y)"},
		},
		{
			name: "a foreign key covering only part of a unique key stays many-to-one",
			cat: Catalog{
				Relations:   []*Relation{table("a", "x"), table("b", "p", "q")},
				Keys:        []Key{pk("a", "x"), unique("b", "p", "q")},
				ForeignKeys: []ForeignKey{fk("b_fkey", "b", "a", "p=x")},
			},
			from: "a",
			want: []string{"O2M a -> b b_fkey (x=p)"},
		},
		{
			name: "a junction's foreign key columns must all be in its primary key",
			cat: Catalog{
				Relations: []*Relation{
					table("a", "id"), table("c", "id"),
					table("j", "a_id", "c_id"), table("k", "id", "a_id", "c_id"), table("u", "a_id", "c_id"),
				},
				Keys: []Key{pk("a", "id"), pk("c", "id"), pk("j", "a_id", "c_id"), pk("k", "id"), unique("u", "a_id", "c_id")},
				ForeignKeys: []ForeignKey{
					fk("j_a", "j", "a", "a_id=id"), fk("j_c", "j", "c", "c_id=id"),
					fk("k_a", "k", "a", "a_id=id"), fk("k_c", "k", "c", "c_id=id"),
					fk("u_a", "u", "a", "a_id=id"), fk("u_c", "u", "c", "c_id=id"),
				},
			},
			from: "a",
			want: []string{
				"M2M a -> c via j j_a (id=a_id) j_c (id=c_id)",
				"O2M a -> j j_a (id=a_id)",
				"O2M a -> k k_a (id=a_id)",
				"O2M a -> u u_a (id=a_id)",
			},
		},
		{
			name: "one-to-one keys make no junction",
			cat: Catalog{
				Relations: []*Relation{table("a", "id"), table("c", "id"), table("j", "a_id", "c_id")},
				Keys:      []Key{pk("a", "id"), pk("c", "id"), pk("j", "a_id"), unique("j", "c_id")},
				ForeignKeys: []ForeignKey{
					fk("j_a", "j", "a", "a_id=id"), fk("j_c", "j", "c", "c_id=id"),
				},
			},
			from: "a",
			want: []string{"O2O a -> j j_a (id=a_id) [parent]"},
		},
		{
			name: "a junction referencing one table twice is a self many-to-many both ways",
			cat: Catalog{
				Relations: []*Relation{table("users", "id"), table("follows", "a", "b")},
				Keys:      []Key{pk("users", "id"), pk("follows", "a", "b")},
				ForeignKeys: []ForeignKey{
					fk("follows_a", "follows", "users", "a=id"), fk("follows_b", "follows", "users", "b=id"),
				},
			},
			from: "users",
			want: []string{
				"O2M users -> follows follows_a (id=a)",
				"O2M users -> follows follows_b (id=b)",
				"M2M users -> users via follows follows_a (id=a) follows_b (id=b) [self]",
				"M2M users -> users via follows follows_b (id=b) follows_a (id=a) [self]",
			},
		},
		{
			name: "a self-reference sorts one-to-many first",
			cat: Catalog{
				Relations:   []*Relation{table("emp", "id", "boss")},
				Keys:        []Key{pk("emp", "id")},
				ForeignKeys: []ForeignKey{fk("emp_boss", "emp", "emp", "boss=id")},
			},
			from: "emp",
			want: []string{
				"O2M emp -> emp emp_boss (id=boss) [self]",
				"M2O emp -> emp emp_boss (boss=id) [self]",
			},
		},
		{
			name: "a view showing a key column twice gets one relationship per column, views on both ends",
			cat: Catalog{
				Relations: []*Relation{
					table("a", "id"), table("b", "id", "a_id"),
					view("bv", "bid", "a1", "a2"), view("av", "aid"),
				},
				Keys:        []Key{pk("a", "id"), pk("b", "id")},
				ForeignKeys: []ForeignKey{fk("b_a", "b", "a", "a_id=id")},
				ViewColumns: []ViewColumn{
					viewCol("bv", "a2", "b", "a_id"), viewCol("bv", "a1", "b", "a_id"), viewCol("bv", "bid", "b", "id"),
					viewCol("av", "aid", "a", "id"),
				},
			},
			from: "bv",
			want: []string{
				"M2O bv -> a b_a (a1=id) [table-view]",
				"M2O bv -> a b_a (a2=id) [table-view]",
				"M2O bv -> av b_a (a1=aid) [table-view foreign-view]",
				"M2O bv -> av b_a (a2=aid) [table-view foreign-view]",
			},
		},
		{
			name: "a view must show every column of a composite key",
			cat: Catalog{
				Relations:   []*Relation{table("a", "x", "y"), table("b", "p", "q"), view("bv", "p")},
				Keys:        []Key{pk("a", "x", "y")},
				ForeignKeys: []ForeignKey{fk("b_a", "b", "a", "p=x", "q=y")},
				ViewColumns: []ViewColumn{viewCol("bv", "p", "b", "p")},
			},
			from: "bv",
			want: nil,
		},
		{
			name: "relationships leave the exposed schemas only through views",
			cat: Catalog{
				Relations: []*Relation{table("users", "id"), view("secrets", "id", "owner")},
				Keys:      []Key{pk("users", "id"), pk("private.secrets", "id")},
				ForeignKeys: []ForeignKey{
					fk("secrets_owner", "private.secrets", "users", "owner=id"),
				},
				ViewColumns: []ViewColumn{
					viewCol("secrets", "id", "private.secrets", "id"), viewCol("secrets", "owner", "private.secrets", "owner"),
				},
			},
			from: "users",
			want: []string{"O2M users -> secrets secrets_owner (id=owner) [foreign-view]"},
		},
		{
			name: "a junction in an unexposed schema joins nothing",
			cat: Catalog{
				Relations: []*Relation{table("a", "id"), table("c", "id")},
				Keys:      []Key{pk("a", "id"), pk("c", "id"), pk("private.j", "a_id", "c_id")},
				ForeignKeys: []ForeignKey{
					fk("j_a", "private.j", "a", "a_id=id"), fk("j_c", "private.j", "c", "c_id=id"),
				},
			},
			from: "a",
			want: nil,
		},
		{
			name: "a view's inferred primary key makes it a junction",
			cat: Catalog{
				Relations: []*Relation{table("a", "id"), table("c", "id"), view("jv", "x", "y")},
				Keys:      []Key{pk("a", "id"), pk("c", "id"), pk("private.j", "a_id", "c_id")},
				ForeignKeys: []ForeignKey{
					fk("j_a", "private.j", "a", "a_id=id"), fk("j_c", "private.j", "c", "c_id=id"),
				},
				ViewColumns: []ViewColumn{
					viewCol("jv", "x", "private.j", "a_id"), viewCol("jv", "y", "private.j", "c_id"),
				},
			},
			from: "a",
			want: []string{
				"M2M a -> c via jv j_a (id=x) j_c (id=y)",
				"O2M a -> jv j_a (id=x) [foreign-view]",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cat.Schemas = []string{"api"}
			c := Build(&tt.cat)
			got := describeAll(c.Relationships("api", qn(tt.from).Name))
			if !slices.Equal(got, tt.want) {
				t.Errorf("relationships from %s:\n got %q\nwant %q", tt.from, got, tt.want)
			}
		})
	}
}

func TestBuildComputed(t *testing.T) {
	users, tasks := table("users", "id", "name"), table("tasks", "id", "user_id")
	fn := func(name string, set bool, shape ReturnShape, ret string, rows float32) *Function {
		f := &Function{Schema: "api", Name: name, Params: []Param{{Type: "api.users"}},
			ArgRelation: qn("users"), Rows: rows, Returns: Return{Set: set, Shape: shape}}
		if ret != "" {
			f.Returns.RelationSchema, f.Returns.RelationName = "api", ret
		}
		return f
	}
	private := fn("private_name", false, ReturnsScalar, "", 0)
	private.Schema = "private"
	cat := &Catalog{
		Schemas:   []string{"api"},
		Relations: []*Relation{users, tasks},
		Keys:      []Key{pk("users", "id"), pk("tasks", "id")},
		ForeignKeys: []ForeignKey{
			fk("tasks_user_id_fkey", "tasks", "users", "user_id=id"),
		},
		Functions: []*Function{
			fn("full_name", false, ReturnsScalar, "", 0),
			fn("tasks", true, ReturnsComposite, "tasks", 1000),
			fn("first_task", true, ReturnsComposite, "tasks", 1),
			fn("last_task", false, ReturnsComposite, "tasks", 0),
			fn("labels", true, ReturnsScalar, "", 1000),
			fn("touch", false, ReturnsVoid, "", 0),
			private,
		},
	}
	c := Build(cat)

	got := describeAll(c.Relationships("api", "users"))
	want := []string{"computed users -> tasks first_task", "computed users -> tasks last_task", "computed users -> tasks tasks"}
	if !slices.Equal(got, want) {
		t.Errorf("relationships from users:\n got %q\nwant %q (the function tasks overrides the foreign key)", got, want)
	}
	for _, tt := range []struct {
		to    string
		toOne bool
	}{{"first_task", true}, {"last_task", true}, {"tasks", false}} {
		rels := c.FindRelationships("api", "users", tt.to, "")
		if len(rels) != 1 || rels[0].ToOne() != tt.toOne {
			t.Errorf("users -> %s: %q, want one with ToOne() %v", tt.to, describeAll(rels), tt.toOne)
		}
	}
	for name, want := range map[string]bool{
		"full_name": true, "last_task": true,
		"tasks": false, "first_task": false, "labels": false, "touch": false, "private_name": false,
	} {
		if _, ok := c.ComputedColumn("api", "users", name); ok != want {
			t.Errorf("ComputedColumn(api, users, %s) = %v, want %v", name, ok, want)
		}
	}
}

func TestBuildKeys(t *testing.T) {
	t1 := table("t", "id", "code", "a", "b")
	v := view("v", "vid", "vcode", "again")
	c := Build(&Catalog{
		Schemas:   []string{"api"},
		Relations: []*Relation{t1, v},
		Keys:      []Key{pk("t", "id"), unique("t", "code"), unique("t", "a", "b")},
		ViewColumns: []ViewColumn{
			viewCol("v", "again", "t", "id"), viewCol("v", "vid", "t", "id"), viewCol("v", "vcode", "t", "code"),
		},
	})
	if !slices.Equal(t1.PrimaryKey, []string{"id"}) {
		t.Errorf("PrimaryKey = %q", t1.PrimaryKey)
	}
	if want := [][]string{{"code"}, {"a", "b"}}; !slices.EqualFunc(t1.UniqueKeys, want, slices.Equal) {
		t.Errorf("UniqueKeys = %q, want %q", t1.UniqueKeys, want)
	}
	// The first view column showing the key column, by position.
	if !slices.Equal(v.ViewPrimaryKey, []string{"vid"}) || len(v.PrimaryKey) != 0 {
		t.Errorf("view: PrimaryKey = %q, ViewPrimaryKey = %q", v.PrimaryKey, v.ViewPrimaryKey)
	}
	if col, ok := c.Relations["api"]["t"].Column("code"); !ok || col.Position != 2 {
		t.Errorf("Column(code) = %+v, %v", col, ok)
	}
}
