package plan

import (
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// The parts of a plan that a usual read has one of are allocated with
// what holds them: a level of one field (select=*, or one column) with
// its field and output item, a level's first filter with its list of
// conditions. A one-row read is then planned in two allocations rather
// than five (in one, with the builder's newLevel, when the level is the
// root and a filter goes to it); bigger plans allocate as before.

// oneFieldLevel is a level with room for one field and one output item.
type oneFieldLevel struct {
	read   Read
	field  [1]Field
	output [1]OutputItem
}

// newLevel is a level of rel with room for fields fields and output
// items.
func newLevel(rel *schemacache.Relation, alias string, fields int) *Read {
	if fields == 1 {
		l := &oneFieldLevel{}
		// Field by field: l is new and zero.
		l.read.Relation, l.read.Alias, l.read.Fields, l.read.Output = rel, alias, l.field[:0], l.output[:0]
		return &l.read
	}
	r := &Read{Relation: rel, Alias: alias, Fields: make([]Field, 0, fields)}
	if fields > 0 {
		r.Output = make([]OutputItem, 0, fields)
	}
	return r
}

// firstCondition is a level's list of conditions with room for one,
// and the filter of that one.
type firstCondition struct {
	where  [1]Condition
	filter Filter
}

// filterStorage is room for lvl's next filter: with its list of
// conditions when lvl has none yet, taken from the room newLevel made
// with lvl when there is some.
func (b *builder) filterStorage(lvl *Read) *Filter {
	if lvl.Where != nil {
		return new(Filter)
	}
	s := b.spareCondition
	if s == nil || b.spareFor != lvl {
		s = &firstCondition{}
	} else {
		b.spareCondition, b.spareFor = nil, nil
	}
	lvl.Where = s.where[:0]
	return &s.filter
}

// filteredOneFieldLevel is a level of one field with room for its first
// condition too: the root of a read that filters its rows (a one-row
// read), planned in one allocation.
type filteredOneFieldLevel struct {
	oneFieldLevel
	first firstCondition
}

// newLevel is newLevel for the builder: the first level it makes is the
// root, which gets room for its first condition when rootFiltered says a
// filter goes to it.
func (b *builder) newLevel(rel *schemacache.Relation, alias string, fields int) *Read {
	filtered := b.rootFiltered
	b.rootFiltered = false
	if !filtered || fields != 1 {
		return newLevel(rel, alias, fields)
	}
	l := &filteredOneFieldLevel{}
	// Field by field: l is new and zero.
	l.read.Relation, l.read.Alias, l.read.Fields, l.read.Output = rel, alias, l.field[:0], l.output[:0]
	b.spareCondition, b.spareFor = &l.first, &l.read
	return &l.read
}

// filtersRoot says whether a filter of q goes to the root level.
func filtersRoot(q *apirequest.Query) bool {
	for i := range q.Filters {
		if len(q.Filters[i].EmbedPath) == 0 {
			return true
		}
	}
	return false
}
