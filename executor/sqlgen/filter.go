package sqlgen

import (
	"strings"

	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// binaryOps are the operators that compare a column with one value.
var binaryOps = map[string]sqltext.SQL{
	"eq": sqltext.Const("="), "neq": sqltext.Const("<>"), "gt": sqltext.Const(">"), "gte": sqltext.Const(">="),
	"lt": sqltext.Const("<"), "lte": sqltext.Const("<="),
	"like": sqltext.Const("like"), "ilike": sqltext.Const("ilike"), "match": sqltext.Const("~"), "imatch": sqltext.Const("~*"),
	"cs": sqltext.Const("@>"), "cd": sqltext.Const("<@"), "ov": sqltext.Const("&&"),
	"sl": sqltext.Const("<<"), "sr": sqltext.Const(">>"), "nxr": sqltext.Const("&<"), "nxl": sqltext.Const("&>"),
	"adj":        sqltext.Const("-|-"),
	"isdistinct": sqltext.Const("is distinct from"),
}

// ftsFunctions turn the value into a tsquery for each full-text operator.
var ftsFunctions = map[string]sqltext.SQL{
	"fts":   sqltext.Const("pg_catalog.to_tsquery"),
	"plfts": sqltext.Const("pg_catalog.plainto_tsquery"),
	"phfts": sqltext.Const("pg_catalog.phraseto_tsquery"),
	"wfts":  sqltext.Const("pg_catalog.websearch_to_tsquery"),
}

// isValues are the only right-hand sides of "is": keywords, not values.
var isValues = map[string]sqltext.SQL{
	"null": sqltext.Const("null"), "not_null": sqltext.Const("not null"), "true": sqltext.Const("true"),
	"false": sqltext.Const("false"), "unknown": sqltext.Const("unknown"),
}

// quantifiers are the words of op(any) and op(all).
var quantifiers = map[string]sqltext.SQL{"any": sqltext.Const("any"), "all": sqltext.Const("all")}

// condition renders one condition of level r.
func (g *gen) condition(r *plan.Read, c plan.Condition) sqltext.SQL {
	var s sqltext.SQL
	switch {
	case c.EmbedNull != nil && g.counting:
		// not.is.null is EXISTS, is.null NOT EXISTS, as PostgREST writes
		// them in its count query.
		exists := sqltext.Fmt("exists (%s)", g.countLevel(r, c.EmbedNull))
		if c.Negated {
			return exists
		}
		return sqltext.Fmt("not %s", exists)
	case c.EmbedNull != nil:
		if c.EmbedNull.ToOne() {
			s = sqltext.Fmt("pg_catalog.row_to_json(%s.*)", sqltext.Ident(c.EmbedNull.Plan.Alias+"_r"))
		} else {
			s = sqltext.Fmt("%s.body", sqltext.Ident(c.EmbedNull.Plan.Alias+"_agg"))
		}
		s = sqltext.Fmt("%s is null", s)
	case c.Filter != nil:
		s = g.filter(r, c.Filter)
	default:
		parts := make([]sqltext.SQL, len(c.Children))
		for i, ch := range c.Children {
			parts[i] = g.condition(r, ch)
		}
		joined := sqltext.Join(parts, " and ")
		if c.Op == "or" {
			joined = sqltext.Join(parts, " or ")
		}
		s = sqltext.Fmt("(%s)", joined)
		if len(parts) == 0 {
			s = sqltext.Const("true")
		}
	}
	if c.Negated {
		return sqltext.Fmt("not (%s)", s)
	}
	return s
}

// filter renders a column comparison; every value is a parameter whose
// type PostgreSQL infers from the column.
func (g *gen) filter(r *plan.Read, f *plan.Filter) sqltext.SQL {
	col := g.refExpr(r.Alias, f.Ref)
	switch f.Op {
	case "is":
		return sqltext.Fmt("%s is %s", col, isValues[f.Value])
	case "in":
		values := f.Values
		if len(values) == 1 && values[0] == "" {
			// in.() and in.("") parse to one empty element; PostgREST
			// reads both as the empty list, which matches no row.
			values = nil
		}
		return sqltext.Fmt("%s = any(%s)", col, g.parsedList(f, arrayLiteral(values)))
	}
	if fn, ok := ftsFunctions[f.Op]; ok {
		q := sqltext.Fmt("%s(", fn)
		var lang sqltext.SQL
		if f.Language != "" {
			lang = sqltext.Fmt("%s::regconfig", g.param(f.Language))
			q = sqltext.Fmt("%s%s, ", q, lang)
		}
		if f.ToTsVector {
			// A text or JSON value is turned into a tsvector with the
			// query's configuration, or the two would disagree.
			if lang.IsEmpty() {
				col = sqltext.Fmt("pg_catalog.to_tsvector(%s)", col)
			} else {
				col = sqltext.Fmt("pg_catalog.to_tsvector(%s, %s)", lang, col)
			}
		}
		return sqltext.Fmt("%s @@ %s%s)", col, q, g.param(f.Value))
	}
	op := binaryOps[f.Op]
	if f.Quantifier != "" {
		// eq(any).{a,b}: the list is an array literal PostgreSQL parses
		// against the column's type.
		return sqltext.Fmt("%s %s %s(%s)", col, op, quantifiers[f.Quantifier], g.parsedList(f, f.Value))
	}
	return sqltext.Fmt("%s %s %s", col, op, g.parsedValue(f, f.Value))
}

// parsedValue binds a filter's value, passed through the column's text
// parser when it has a data representation.
func (g *gen) parsedValue(f *plan.Filter, v string) sqltext.SQL {
	p := g.param(v)
	if f.Parse == nil {
		return p
	}
	return sqltext.Fmt("%s(%s::text)", sqltext.Qualified(f.Parse.Function.Schema, f.Parse.Function.Name), p)
}

// parsedList binds an array literal of a filter's values; with a data
// representation each element goes through the column's text parser, so
// the list becomes a subquery.
func (g *gen) parsedList(f *plan.Filter, literal string) sqltext.SQL {
	p := g.param(literal)
	if f.Parse == nil {
		return p
	}
	return sqltext.Fmt("select %s(pg_catalog.unnest(%s::text[]))",
		sqltext.Qualified(f.Parse.Function.Schema, f.Parse.Function.Name), p)
}

// arrayLiteral renders values as a PostgreSQL array literal, every
// element quoted, so commas, braces and quotes in values stay inside
// their element. It is a bind argument's value, never SQL text.
func arrayLiteral(values []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for _, r := range v {
			if r == '"' || r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}
