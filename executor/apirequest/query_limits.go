package apirequest

import (
	"fmt"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// Limits on the work one request may ask of the database, beyond what
// statement_timeout bounds: a URL of a few kilobytes can otherwise ask for
// seconds of planning (PostgreSQL's planning time grows steeply with the
// depth of nested embeds: 32 levels take a second, 40 more than five). A
// query string over one is 400 PGRST191, before anything reaches the
// database. The values are well past what applications ask for.
// SECURITY.md lists them.
const (
	// maxEmbedDepth is how deep embedded resources (spreads included)
	// may nest in select.
	maxEmbedDepth = 16
	// maxEmbeds is how many embedded resources select may have, at
	// every level together.
	maxEmbeds = 100
	// maxSelectItems is how many items select may have, at every level
	// together (columns, stars, aggregates and embeds). It is above
	// PostgreSQL's 1,664 columns of one select list (limits.go in package
	// plan), which one level meets first.
	maxSelectItems = 2000
	// maxLogicDepth is how deep and/or trees may nest in one and/or
	// parameter, the parameter's own tree counting as one.
	maxLogicDepth = 32
	// maxFilters is how many filters a query string may have: the
	// column filters and those inside and/or parameters.
	maxFilters = 1000
)

func embedsTooDeep() *apierr.Error {
	return apierr.QueryTooComplex(fmt.Sprintf(
		"The select parameter has embedded resources nested deeper than %d levels.", maxEmbedDepth))
}

func logicTooDeep() *apierr.Error {
	return apierr.QueryTooComplex(fmt.Sprintf(
		"An and/or parameter has and/or nested deeper than %d levels.", maxLogicDepth))
}

// nested is p one level deeper in the tree being read. Past maxDepth it
// fails, consuming, so that no alternative is tried, and leaves tooDeep's
// error for runParser: the grammar never recurses past a limit, however
// deep the input nests.
func nested[T any](p parser[T], maxDepth int, tooDeep func() *apierr.Error) parser[T] {
	return func(s pstate) reply[T] {
		if s.src.depth >= maxDepth {
			if s.src.overLimit == nil {
				s.src.overLimit = tooDeep()
			}
			return reply[T]{consumed: true, err: s.unknownErr()}
		}
		s.src.depth++
		r := p(s)
		s.src.depth--
		return r
	}
}

// checkQueryLimits refuses a parsed query over the limits that count. The
// depths were held while parsing (nested; the select scanner defers to
// the grammar past maxEmbedDepth).
func checkQueryLimits(q *Query) *apierr.Error {
	embeds, items := selectSize(q.Select)
	if embeds > maxEmbeds {
		return apierr.QueryTooComplex(fmt.Sprintf(
			"The select parameter has %d embedded resources; the limit is %d.", embeds, maxEmbeds))
	}
	if items > maxSelectItems {
		return apierr.QueryTooComplex(fmt.Sprintf(
			"The select parameter has %d select items; the limit is %d.", items, maxSelectItems))
	}
	filters := len(q.Filters)
	for i := range q.Logic {
		filters += logicFilters(&q.Logic[i])
	}
	if filters > maxFilters {
		return apierr.QueryTooComplex(fmt.Sprintf(
			"The query string has %d filters, counting those in and/or; the limit is %d.", filters, maxFilters))
	}
	return nil
}

// selectSize counts the embedded resources and the items of a select
// tree, at every level.
func selectSize(items []SelectItem) (embeds, total int) {
	total = len(items)
	for i := range items {
		if k := items[i].Kind; k == SelectEmbed || k == SelectSpread {
			e, t := selectSize(items[i].Children)
			embeds += 1 + e
			total += t
		}
	}
	return embeds, total
}

// logicFilters counts the filters of an and/or tree.
func logicFilters(t *LogicTree) int {
	n := 0
	for _, c := range t.Children {
		if c.Tree != nil {
			n += logicFilters(c.Tree)
		} else {
			n++
		}
	}
	return n
}
