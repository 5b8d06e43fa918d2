package sqlgen

import (
	"slices"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

func TestReturnedColumns(t *testing.T) {
	rel := &schemacache.Relation{Schema: "api", Name: "items"}
	for _, n := range []string{"id", "name", "price", "category_id", "note"} {
		rel.Columns = append(rel.Columns, &schemacache.Column{Name: n})
	}
	field := func(r plan.ColumnRef) plan.OutputItem { return plan.OutputItem{Field: &plan.Field{Ref: r}} }
	toCategory := &plan.Embed{Relationship: &schemacache.Relationship{Columns: [][2]string{{"category_id", "id"}}}}
	tests := []struct {
		name  string
		read  plan.Read
		cols  []string
		whole bool
	}{
		{"the selected columns, in the relation's order", plan.Read{Output: []plan.OutputItem{
			field(plan.ColumnRef{Column: "note"}), field(plan.ColumnRef{Column: "id"})}}, []string{"id", "note"}, false},
		{"an embed's join column and an ordering column", plan.Read{Output: []plan.OutputItem{field(plan.ColumnRef{Column: "name"})},
			Embeds: []*plan.Embed{toCategory}, Order: []plan.OrderTerm{{Ref: plan.ColumnRef{Column: "price"}}}},
			[]string{"name", "price", "category_id"}, false},
		{"a star is the whole row", plan.Read{Output: []plan.OutputItem{field(plan.ColumnRef{Star: true})}}, nil, true},
		{"a computed column is the whole row", plan.Read{Output: []plan.OutputItem{
			field(plan.ColumnRef{Computed: &schemacache.Function{Name: "f"}})}}, nil, true},
		{"nothing selected is no column", plan.Read{}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cols, whole := returnedColumns(rel, &tt.read)
			if !slices.Equal(cols, tt.cols) || whole != tt.whole {
				t.Errorf("got %v whole %v, want %v whole %v", cols, whole, tt.cols, tt.whole)
			}
		})
	}
}
