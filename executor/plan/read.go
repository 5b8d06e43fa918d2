package plan

import (
	"sort"
	"strconv"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// ReadOptions are the configuration and headers a read plan depends on.
type ReadOptions struct {
	// MaxRows caps the root's rows (db_max_rows); 0 means no cap.
	MaxRows int64
	// AggregatesEnabled allows aggregate functions in select.
	AggregatesEnabled bool
	// RangeHeader is the Range header of a GET ("" otherwise).
	RangeHeader string
	// LegacyTargetNames lets a filter, order or limit name an aliased
	// embed by its relation as well as by its alias
	// (url_use_legacy_target_names, PostgREST's default).
	LegacyTargetNames bool
}

// builder carries what planning one request needs.
type builder struct {
	cache  *schemacache.Cache
	schema string
	opts   ReadOptions
	// aliases counts embeds so each gets a unique correlation name.
	aliases int
	// depth is the level being planned: 0 at the root.
	depth int
	// sameName is the first embed named like another of its level.
	sameName *apierr.Error
	// rootFiltered says a filter goes to the root level, which newLevel
	// then makes with room for it (spareCondition, for the level
	// spareFor).
	rootFiltered   bool
	spareCondition *firstCondition
	spareFor       *Read
}

// BuildRead plans a read of rel for the parsed query q.
func BuildRead(cache *schemacache.Cache, rel *schemacache.Relation, q *apirequest.Query, opts ReadOptions) (*Read, *apierr.Error) {
	b := &builder{cache: cache, schema: rel.Schema, opts: opts, rootFiltered: filtersRoot(q)}
	items := q.Select
	if len(items) == 0 {
		// An empty select (select=) reads every column at the root, as in
		// PostgREST; an embed selecting nothing (name()) stays empty.
		items = rootStar
	}
	root, err := b.level(rel, rel.Name, items)
	if err != nil {
		return nil, err
	}
	if b.sameName != nil {
		return nil, b.sameName
	}
	if err := b.placeFilters(root, q); err != nil {
		return nil, err
	}
	if err := b.placeOrder(root, q.Order); err != nil {
		return nil, err
	}
	if err := b.placeRanges(root, q.Ranges); err != nil {
		return nil, err
	}
	if opts.MaxRows > 0 {
		capEmbeds(root, opts.MaxRows)
	}
	rootRange, err := apirequest.RootRange(opts.RangeHeader, q.Ranges)
	if err != nil {
		return nil, err
	}
	if opts.MaxRows > 0 && (rootRange.Limit == nil || *rootRange.Limit > opts.MaxRows) {
		limit := opts.MaxRows
		rootRange.Limit = &limit
	}
	root.Range = rootRange
	return root, nil
}

// rootStar is the select list of a root whose select is empty: "*".
// Read only.
var rootStar = []apirequest.SelectItem{{Kind: apirequest.SelectStar, Field: apirequest.Field{Name: "*"}}}

// level plans one relation and its select list.
func (b *builder) level(rel *schemacache.Relation, alias string, items []apirequest.SelectItem) (*Read, *apierr.Error) {
	// Room for every item up front: appending then never moves Fields, so
	// Output can point into it.
	r := b.newLevel(rel, alias, b.fieldCount(rel, items))
	for _, it := range items {
		switch it.Kind {
		case apirequest.SelectStar:
			if b.cache.HasOutputRepresentation(rel) {
				// A column with a representation is formatted, so the star
				// becomes the list of columns, as in PostgREST.
				for _, col := range rel.Columns {
					ref := ColumnRef{Column: col.Name, Type: col.Type}
					r.Fields = append(r.Fields, Field{Ref: ref, Name: col.Name, Format: b.outputFormat(ref)})
					r.Output = append(r.Output, OutputItem{Field: &r.Fields[len(r.Fields)-1]})
				}
				continue
			}
			r.Fields = append(r.Fields, Field{Ref: ColumnRef{Star: true}})
			r.Output = append(r.Output, OutputItem{Field: &r.Fields[len(r.Fields)-1]})
		case apirequest.SelectColumn, apirequest.SelectAggregate:
			f, err := b.field(rel, it)
			if err != nil {
				return nil, err
			}
			r.GroupBy = r.GroupBy || f.Aggregate != ""
			r.Fields = append(r.Fields, f)
			r.Output = append(r.Output, OutputItem{Field: &r.Fields[len(r.Fields)-1]})
		case apirequest.SelectEmbed, apirequest.SelectSpread:
			e, err := b.embed(rel, it)
			if err != nil {
				return nil, err
			}
			b.checkSameName(rel, r.Embeds, e)
			r.Embeds = append(r.Embeds, e)
			r.Output = append(r.Output, OutputItem{Embed: e})
		}
	}
	r.GroupBy = r.GroupBy || hoistsAggregates(r)
	if err := checkSelectWidth(r); err != nil {
		return nil, err
	}
	return r, nil
}

// field resolves a column, JSON path, computed column or aggregate.
func (b *builder) field(rel *schemacache.Relation, it apirequest.SelectItem) (Field, *apierr.Error) {
	f := Field{Aggregate: it.Aggregate}
	if it.Aggregate != "" && !b.opts.AggregatesEnabled {
		return f, apierr.AggregatesNotAllowed()
	}
	var err *apierr.Error
	if f.Cast, err = castType(it.Cast); err != nil {
		return f, err
	}
	if f.AggregateCast, err = castType(it.AggregateCast); err != nil {
		return f, err
	}
	// count() and "*".count() count rows; any other aggregate names a value.
	if it.Field.Name != "" && it.Field.Name != "*" {
		f.Ref = b.ref(rel, it.Field)
		f.Format = b.outputFormat(f.Ref)
	}
	switch {
	case it.Alias != "":
		f.Name = it.Alias
	case it.Aggregate != "":
		f.Name = it.Aggregate
	case len(it.Field.JSONPath) > 0:
		// The last key of the path; an array index names nothing, so
		// data->tags->0 is "tags" and data->0 is "data", as in PostgREST.
		f.Name = it.Field.Name
		for i := len(it.Field.JSONPath) - 1; i >= 0; i-- {
			if !it.Field.JSONPath[i].IsIndex {
				f.Name = it.Field.JSONPath[i].Key
				break
			}
		}
	default:
		f.Name = it.Field.Name
	}
	return f, nil
}

// ref resolves a name to a column or a computed column. A name that is
// neither stays a column, so PostgreSQL reports it (42703), as PostgREST
// lets it.
func (b *builder) ref(rel *schemacache.Relation, fd apirequest.Field) ColumnRef {
	ref := ColumnRef{Column: fd.Name, JSONPath: fd.JSONPath}
	if col, ok := rel.Column(fd.Name); ok {
		ref.Type = col.Type
	} else if fn, ok := b.cache.ComputedColumn(rel.Schema, rel.Name, fd.Name); ok {
		ref.Computed = fn
	}
	ref.ToJSON = needsToJSON(ref)
	return ref
}

// embed resolves an embedded resource through the relationships of rel.
func (b *builder) embed(rel *schemacache.Relation, it apirequest.SelectItem) (*Embed, *apierr.Error) {
	found := b.cache.FindRelationships(rel.Schema, rel.Name, it.Relation, it.Hint)
	switch len(found) {
	case 0:
		return nil, b.noRelationship(rel, it)
	case 1:
	default:
		candidates := make([]map[string]string, len(found))
		hints := make([]string, len(found))
		for i, r := range found {
			candidates[i], hints[i] = r.Describe(), r.HintName()
		}
		return nil, apierr.AmbiguousRelationship(rel.Name, it.Relation, candidates, hints)
	}
	rs := found[0]
	target, ok := b.cache.Relation(rs.ForeignTable.Schema, rs.ForeignTable.Name)
	if !ok {
		return nil, b.noRelationship(rel, it)
	}
	name := it.Alias
	if name == "" {
		name = it.Relation
	}
	e := &Embed{Name: name, Relation: it.Relation, Relationship: rs, Inner: it.JoinType == "inner", Spread: it.Kind == apirequest.SelectSpread}
	b.aliases++
	alias := target.Name + "_" + strconv.Itoa(b.aliases)
	b.depth++
	child, err := b.level(target, alias, it.Children)
	b.depth--
	if err != nil {
		return nil, err
	}
	e.Plan = child
	if e.Spread && e.ToOne() {
		// Its aggregates, if any, are the parent's to group.
		child.GroupBy = false
	}
	if e.ToManySpread() && spreadsAggregate(child) {
		return nil, apierr.NotImplemented("Aggregates are not implemented for one-to-many or many-to-many spreads.")
	}
	return e, nil
}

// noRelationship is PGRST200 with PostgREST's suggestion (see
// relationshipHint).
func (b *builder) noRelationship(rel *schemacache.Relation, it apirequest.SelectItem) *apierr.Error {
	return apierr.NoRelationship(rel.Name, it.Relation, it.Hint, b.schema, relationshipHint(b.cache, b.schema, rel.Name, it.Relation))
}

// find walks an embed path down from root.
func (b *builder) find(root *Read, path []string) (*Read, *apierr.Error) {
	r := root
	for _, name := range path {
		e := b.embedNamed(r, name)
		if e == nil {
			return nil, b.notEmbedded(r, name)
		}
		r = e.Plan
	}
	return r, nil
}

// placeFilters puts each filter and logic tree on the level it names.
func (b *builder) placeFilters(root *Read, q *apirequest.Query) *apierr.Error {
	for i := range q.Filters {
		f := &q.Filters[i]
		lvl, err := b.find(root, f.EmbedPath)
		if err != nil {
			return err
		}
		c, err := b.condition(lvl, f)
		if err != nil {
			return err
		}
		lvl.Where = append(lvl.Where, c)
	}
	for i := range q.Logic {
		t := &q.Logic[i]
		lvl, err := b.find(root, t.EmbedPath)
		if err != nil {
			return err
		}
		c, err := b.tree(lvl, t)
		if err != nil {
			return err
		}
		lvl.Where = append(lvl.Where, c)
	}
	return nil
}

func (b *builder) tree(lvl *Read, t *apirequest.LogicTree) (Condition, *apierr.Error) {
	c := Condition{Negated: t.Negated, Op: t.Op}
	for _, n := range t.Children {
		var child Condition
		var err *apierr.Error
		if n.Tree != nil {
			child, err = b.tree(lvl, n.Tree)
		} else {
			child, err = b.condition(lvl, n.Filter)
		}
		if err != nil {
			return c, err
		}
		c.Children = append(c.Children, child)
	}
	return c, nil
}

// condition plans one filter. is.null or not.is.null on the name of an
// embedded resource of its level tests the embed's presence; any other
// filter on that name is a filter on the column of that name, as in
// PostgREST (which reports a missing column as PostgreSQL does).
func (b *builder) condition(lvl *Read, f *apirequest.Filter) (Condition, *apierr.Error) {
	if len(f.Field.JSONPath) == 0 && f.Op == "is" && f.Value == "null" {
		for _, e := range lvl.Embeds {
			if e.Name == f.Field.Name {
				return Condition{EmbedNull: e, Negated: f.Negated}, nil
			}
		}
	}
	// Field by field: flt is new and zero.
	flt := b.filterStorage(lvl)
	flt.Ref, flt.Op, flt.Quantifier = b.ref(lvl.Relation, f.Field), f.Op, f.Quantifier
	flt.Language, flt.Value, flt.Values = f.Language, f.Value, f.Values
	if err := checkFilterValue(flt); err != nil {
		return Condition{}, err
	}
	if parsesFilterValue(flt) {
		flt.Parse = b.textParse(flt.Ref)
	}
	if _, fts := ftsOperators[flt.Op]; fts {
		flt.ToTsVector = b.needsToTsVector(flt.Ref)
	}
	return Condition{Negated: f.Negated, Filter: flt}, nil
}

// placeOrder puts each order spec on its level; a related order must
// name a to-one embed of that level.
func (b *builder) placeOrder(root *Read, specs []apirequest.OrderSpec) *apierr.Error {
	for _, spec := range specs {
		lvl, err := b.find(root, spec.EmbedPath)
		if err != nil {
			return err
		}
		for _, t := range spec.Terms {
			term := OrderTerm{Direction: t.Direction, Nulls: t.Nulls}
			if t.Relation == "" {
				term.Ref = b.ref(lvl.Relation, t.Field)
				lvl.Order = append(lvl.Order, term)
				continue
			}
			var e *Embed
			for _, cand := range lvl.Embeds {
				if cand.Name == t.Relation {
					e = cand
				}
			}
			if e == nil {
				return apierr.NotEmbedded(t.Relation)
			}
			if !e.ToOne() {
				return apierr.RelatedOrderNotToOne(lvl.Relation.Name, t.Relation)
			}
			term.Embed = e
			term.Ref = ColumnRef{Column: t.Field.Name, JSONPath: t.Field.JSONPath}
			lvl.Order = append(lvl.Order, term)
		}
	}
	return nil
}

// placeRanges gives embedded levels their limit/offset ("tasks.limit").
func (b *builder) placeRanges(root *Read, ranges map[string]apirequest.Range) *apierr.Error {
	keys := make([]string, 0, len(ranges))
	for k := range ranges {
		if k != "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		lvl, err := b.find(root, strings.Split(k, "."))
		if err != nil {
			return err
		}
		lvl.Range = ranges[k]
	}
	return nil
}
