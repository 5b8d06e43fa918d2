package schemacache

import (
	"fmt"
	"strings"

	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// summary renders a relationship on one line, for comparing with what
// the tests expect:
//
//	M2O projects -> clients projects_client_id_fkey (client_id=id)
//	M2M users -> tasks via users_tasks users_tasks_user_id_fkey (id=user_id) users_tasks_task_id_fkey (id=task_id)
//	computed users -> tasks first_task to-one
//
// Names are unqualified when in schema api; flags follow in brackets:
// self, table-view, foreign-view, parent.
func summary(r *schemacache.Relationship) string {
	var b strings.Builder
	card := map[schemacache.Cardinality]string{
		schemacache.M2O: "M2O", schemacache.O2M: "O2M", schemacache.O2O: "O2O", schemacache.M2M: "M2M", schemacache.Computed: "computed",
	}[r.Cardinality]
	fmt.Fprintf(&b, "%s %s -> %s", card, short(r.Table), short(r.ForeignTable))
	switch r.Cardinality {
	case schemacache.M2M:
		j := r.Junction
		fmt.Fprintf(&b, " via %s %s %s %s %s", short(j.Table), j.Constraint1, pairs(j.SourceColumns), j.Constraint2, pairs(j.TargetColumns))
	case schemacache.Computed:
		fmt.Fprintf(&b, " %s", r.Function.Name)
		if r.ToOne() {
			b.WriteString(" to-one")
		}
	default:
		fmt.Fprintf(&b, " %s %s", r.Constraint, pairs(r.Columns))
	}
	var flags []string
	if r.IsSelf {
		flags = append(flags, "self")
	}
	if r.TableIsView {
		flags = append(flags, "table-view")
	}
	if r.ForeignTableIsView {
		flags = append(flags, "foreign-view")
	}
	if r.IsParent {
		flags = append(flags, "parent")
	}
	if len(flags) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(flags, " "))
	}
	return b.String()
}

func short(q schemacache.QualifiedName) string {
	if q.Schema == "api" {
		return q.Name
	}
	return q.String()
}

func pairs(ps [][2]string) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p[0] + "=" + p[1]
	}
	return "(" + strings.Join(s, ", ") + ")"
}

func summaries(rels []*schemacache.Relationship) []string {
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = summary(r)
	}
	return out
}
