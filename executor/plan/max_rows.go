package plan

// capEmbeds bounds the rows of every embedded level by db_max_rows, as
// PostgREST applies max-rows to each node of a read's tree and not only to
// the top one: a to-many embed holds at most max rows, from its offset. A
// smaller limit, zero included, is kept.
func capEmbeds(r *Read, max int64) {
	for _, e := range r.Embeds {
		lvl := e.Plan
		if lvl.Range.Limit == nil || *lvl.Range.Limit > max {
			limit := max
			lvl.Range.Limit = &limit
		}
		capEmbeds(lvl, max)
	}
}
