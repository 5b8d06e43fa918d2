package schemacache

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Dump writes everything the cache holds as sorted lines of text, one fact
// a line, so that two caches compare as text: a change of the loader that
// changes any relation, column, key, function, relationship, computed
// column, media handler, representation, domain, role setting or time
// zone shows as a changed line. Lists whose order means something
// (columns, parameters, a relation's relationships, a name's overloads,
// a role's settings) keep their order. Function oids are left out: they
// differ between two databases made from one script.
func (c *Cache) Dump(out io.Writer) error {
	w := bufio.NewWriter(out)
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("server_version_num %d", c.ServerVersionNum)
	p("postgis_schema %q", c.PostGISSchema)

	for _, s := range sortedStrings(c.Relations) {
		p("schema %q", s)
		rels := c.Relations[s]
		for _, n := range sortedStrings(rels) {
			r := rels[n]
			p("relation %q.%q kind=%c insertable=%t updatable=%t deletable=%t description=%q",
				r.Schema, r.Name, r.Kind, r.Insertable, r.Updatable, r.Deletable, r.Description)
			p("  primary_key %q", r.PrimaryKey)
			for _, u := range r.UniqueKeys {
				p("  unique_key %q", u)
			}
			p("  view_primary_key %q", r.ViewPrimaryKey)
			for _, col := range r.Columns {
				p("  column %d %q type=%q nullable=%t default=%q has_default=%t max_length=%d enum=%q insert_default=%q description=%q",
					col.Position, col.Name, col.Type, col.Nullable, col.Default, col.HasDefault, col.MaxLength,
					col.EnumValues, col.InsertDefault, col.Description)
				if got, ok := r.Column(col.Name); !ok || got != col {
					p("  column %q is not found by name", col.Name)
				}
			}
			if len(r.columnIndex) != len(r.Columns) {
				p("  column index holds %d columns", len(r.columnIndex))
			}
		}
	}

	for _, s := range sortedStrings(c.Functions) {
		fns := c.Functions[s]
		for _, n := range sortedStrings(fns) {
			for _, f := range fns[n] {
				p("function %s", functionLine(f))
			}
		}
	}

	for _, from := range sortedKeys(c.relationships) {
		for _, r := range c.relationships[from] {
			p("relationship %s", relationshipLine(r))
		}
	}

	for _, rel := range sortedKeys(c.computedColumns) {
		cols := c.computedColumns[rel]
		for _, n := range sortedStrings(cols) {
			p("computed_column %q.%q %q = %s", rel.Schema, rel.Name, n, functionSignature(cols[n]))
		}
	}

	handlers := make([]MediaHandlerKey, 0, len(c.mediaHandlers))
	for k := range c.mediaHandlers {
		handlers = append(handlers, k)
	}
	slices.SortFunc(handlers, func(a, b MediaHandlerKey) int {
		return cmp.Or(compareNames(a.Target, b.Target), cmp.Compare(a.MediaType, b.MediaType))
	})
	for _, k := range handlers {
		h := c.mediaHandlers[k]
		p("media_handler target=%q.%q media_type=%q function=%q.%q aggregate=%t handler_target=%q.%q handler_media_type=%q binary=%t",
			k.Target.Schema, k.Target.Name, k.MediaType, h.Function.Schema, h.Function.Name, h.Aggregate,
			h.Target.Schema, h.Target.Name, h.MediaType, h.Binary)
	}

	reps := make([][2]string, 0, len(c.representations))
	for k := range c.representations {
		reps = append(reps, k)
	}
	slices.SortFunc(reps, func(a, b [2]string) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	for _, k := range reps {
		r := c.representations[k]
		p("representation %q -> %q source=%q target=%q function=%q.%q", k[0], k[1], r.Source, r.Target,
			r.Function.Schema, r.Function.Name)
	}

	for _, d := range sortedStrings(c.domains) {
		p("domain %q base=%q", d, c.domains[d])
	}
	for _, role := range sortedStrings(c.RoleSettings) {
		for _, s := range c.RoleSettings[role] {
			p("role_setting %q %q=%q", role, s.Name, s.Value)
		}
	}
	return w.Flush()
}

// functionLine renders every field of a function but its oid.
func functionLine(f *Function) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s volatility=%c rows=%g description=%q arg_relation=%q.%q settings=%q inlinable=%t",
		functionSignature(f), f.Volatility, f.Rows, f.Description, f.ArgRelation.Schema, f.ArgRelation.Name,
		f.Settings, f.Inlinable)
	fmt.Fprintf(&b, " returns={shape=%d set=%t type=%q pseudo=%t relation=%q.%q}",
		f.Returns.Shape, f.Returns.Set, f.Returns.Type, f.Returns.Pseudo, f.Returns.RelationSchema, f.Returns.RelationName)
	for _, prm := range f.Params {
		fmt.Fprintf(&b, " param={name=%q type=%q type_schema=%q type_name=%q array_dims=%d has_default=%t variadic=%t}",
			prm.Name, prm.Type, prm.TypeSchema, prm.TypeName, prm.TypeArrayDims, prm.HasDefault, prm.Variadic)
	}
	return b.String()
}

// functionSignature names a function and its input types, which tells
// overloads apart.
func functionSignature(f *Function) string {
	if f == nil {
		return "<nil>"
	}
	types := make([]string, len(f.Params))
	for i, prm := range f.Params {
		types[i] = prm.Type
	}
	return fmt.Sprintf("%q.%q(%s)", f.Schema, f.Name, strings.Join(types, ", "))
}

// relationshipLine renders every field of a relationship.
func relationshipLine(r *Relationship) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q.%q -> %q.%q %s self=%t table_view=%t foreign_view=%t parent=%t constraint=%q columns=%q",
		r.Table.Schema, r.Table.Name, r.ForeignTable.Schema, r.ForeignTable.Name, r.Cardinality,
		r.IsSelf, r.TableIsView, r.ForeignTableIsView, r.IsParent, r.Constraint, r.Columns)
	if j := r.Junction; j != nil {
		fmt.Fprintf(&b, " junction={%q.%q %q %q source=%q target=%q}", j.Table.Schema, j.Table.Name,
			j.Constraint1, j.Constraint2, j.SourceColumns, j.TargetColumns)
	}
	if r.Function != nil {
		fmt.Fprintf(&b, " function=%s", functionSignature(r.Function))
	}
	return b.String()
}

func sortedStrings[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
