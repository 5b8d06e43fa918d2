package sqlgen

import (
	"strings"

	"github.com/pgrest/caddy-pgrest/executor/plan"
)

// binaryOps are the operators that compare a column with one value.
var binaryOps = map[string]string{
	"eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=",
	"like": "like", "ilike": "ilike", "match": "~", "imatch": "~*",
	"cs": "@>", "cd": "<@", "ov": "&&",
	"sl": "<<", "sr": ">>", "nxr": "&<", "nxl": "&>", "adj": "-|-",
	"isdistinct": "is distinct from",
}

// ftsFunctions turn the value into a tsquery for each full-text operator.
var ftsFunctions = map[string]string{
	"fts": "to_tsquery", "plfts": "plainto_tsquery", "phfts": "phraseto_tsquery", "wfts": "websearch_to_tsquery",
}

// isValues are the only right-hand sides of "is": keywords, not values.
var isValues = map[string]string{
	"null": "null", "not_null": "not null", "true": "true", "false": "false", "unknown": "unknown",
}

// condition renders one condition of level r.
func (g *gen) condition(r *plan.Read, c plan.Condition) string {
	var s string
	switch {
	case c.EmbedNull != nil:
		if c.EmbedNull.ToOne() {
			s = "pg_catalog.row_to_json(" + QuoteIdent(c.EmbedNull.Plan.Alias+"_r") + ".*)"
		} else {
			s = QuoteIdent(c.EmbedNull.Plan.Alias+"_agg") + ".body"
		}
		s += " is null"
	case c.Filter != nil:
		s = g.filter(r, c.Filter)
	default:
		parts := make([]string, len(c.Children))
		for i, ch := range c.Children {
			parts[i] = g.condition(r, ch)
		}
		join := " and "
		if c.Op == "or" {
			join = " or "
		}
		s = "(" + strings.Join(parts, join) + ")"
		if len(parts) == 0 {
			s = "true"
		}
	}
	if c.Negated {
		return "not (" + s + ")"
	}
	return s
}

// filter renders a column comparison; every value is a parameter whose
// type PostgreSQL infers from the column.
func (g *gen) filter(r *plan.Read, f *plan.Filter) string {
	col := g.refExpr(r.Alias, f.Ref)
	switch f.Op {
	case "is":
		return col + " is " + isValues[f.Value]
	case "in":
		values := f.Values
		if len(values) == 1 && values[0] == "" {
			// in.() and in.("") parse to one empty element; PostgREST
			// reads both as the empty list, which matches no row.
			values = nil
		}
		return col + " = any(" + g.param(arrayLiteral(values)) + ")"
	}
	if fn, ok := ftsFunctions[f.Op]; ok {
		q := "pg_catalog." + fn + "("
		if f.Language != "" {
			lang := g.param(f.Language) + "::regconfig"
			q += lang + ", "
			if f.Ref.Type != "" && f.Ref.Type != "tsvector" && len(f.Ref.JSONPath) == 0 {
				// A text column is turned into a tsvector with the same
				// configuration as the query, or the two would disagree.
				col = "pg_catalog.to_tsvector(" + lang + ", " + col + ")"
			}
		}
		return col + " @@ " + q + g.param(f.Value) + ")"
	}
	op := binaryOps[f.Op]
	if f.Quantifier != "" {
		// eq(any).{a,b}: the list is an array literal PostgreSQL parses
		// against the column's type.
		return col + " " + op + " " + f.Quantifier + "(" + g.param(f.Value) + ")"
	}
	return col + " " + op + " " + g.param(f.Value)
}

// arrayLiteral renders values as a PostgreSQL array literal, every
// element quoted, so commas, braces and quotes in values stay inside
// their element.
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
