package plan

// ToManySpread says whether the embed is a spread of a one-to-many or
// many-to-many relationship: its columns become arrays in the parent row,
// one element per embedded row, all in the same order.
func (e *Embed) ToManySpread() bool { return e.Spread && !e.ToOne() }

// spreadsAggregate says whether a level selects an aggregate, itself or
// through the spreads it holds, whose values land in the same row.
func spreadsAggregate(r *Read) bool {
	for _, it := range r.Output {
		switch {
		case it.Field != nil && it.Field.Aggregate != "":
			return true
		case it.Embed != nil && it.Embed.Spread && spreadsAggregate(it.Embed.Plan):
			return true
		}
	}
	return false
}

// hoistsAggregates says whether a level computes aggregates of its to-one
// spreads: PostgREST applies an aggregate inside a to-one spread to the
// rows of the first level above it that is not one, grouped by the rest.
func hoistsAggregates(r *Read) bool {
	for _, e := range r.Embeds {
		if e.Spread && e.ToOne() && spreadsAggregate(e.Plan) {
			return true
		}
	}
	return false
}
