package changes

import (
	"fmt"
	"strings"
)

// filterOps are the operators of a postgres_changes filter pgrest
// accepts: those of Supabase Realtime's realtime.equality_op before it
// grew like, ilike, is, match, imatch, isdistinct and the not. prefix.
var filterOps = map[string]bool{"eq": true, "neq": true, "lt": true, "lte": true, "gt": true, "gte": true, "in": true}

// filter is one condition of a spec's filter: column op value. Values
// are the filter's text as the client wrote it (one, or several for
// in); canon is each as the JSON value the column's type makes of it,
// filled in by Subscribe from PostgreSQL's own casts, so that comparing
// it with a row's value compares like with like.
type filter struct {
	Column string
	Op     string
	Values []string
	canon  []jsonValue
}

// parseFilter parses a spec's filter as Supabase Realtime's
// Subscriptions.parse_subscription_params does: comma-separated
// conditions (commas inside parentheses or double quotes do not
// separate), each column=op.value, all of which must hold. The error
// texts are Realtime's ("Error parsing `filter` params: ..." with the
// offending parts in Elixir's inspect form).
func parseFilter(s string) ([]filter, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []filter
	for _, seg := range splitTopLevel(s) {
		f, reason := parseSegment(seg)
		if reason != "" {
			return nil, fmt.Errorf("Error parsing `filter` params: %s", reason)
		}
		out = append(out, f)
	}
	return out, nil
}

func parseSegment(seg string) (filter, string) {
	seg = strings.TrimSpace(seg)
	if seg == "" {
		return filter{}, "filter must not contain empty segments (check for extra commas)"
	}
	col, rest, ok := strings.Cut(seg, "=")
	if !ok {
		return filter{}, inspectList(seg)
	}
	op, value, ok := strings.Cut(rest, ".")
	if !ok {
		return filter{}, inspectList(rest)
	}
	if !filterOps[op] {
		return filter{}, inspectList(op, value)
	}
	if op != "in" {
		return filter{Column: col, Op: op, Values: []string{unquoteValue(value)}}, ""
	}
	if len(value) < 2 || value[0] != '(' || value[len(value)-1] != ')' {
		return filter{}, "`in` filter value must be wrapped by parentheses"
	}
	var values []string
	for _, v := range splitTopLevel(value[1 : len(value)-1]) {
		values = append(values, unquoteValue(strings.TrimSpace(v)))
	}
	return filter{Column: col, Op: op, Values: values}, ""
}

// splitTopLevel splits at commas outside parentheses and double quotes.
func splitTopLevel(s string) []string {
	var parts []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth = max(0, depth-1)
		case c == ',' && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// unquoteValue removes double quotes around a value, with backslash
// escapes inside, as Realtime's unquote_value; anything else, including
// a quote that does not close at the end, is the value as written.
func unquoteValue(v string) string {
	if len(v) < 2 || v[0] != '"' {
		return v
	}
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			if i+1 >= len(v) {
				return v
			}
			i++
			b.WriteByte(v[i])
		case '"':
			if i != len(v)-1 {
				return v
			}
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return v
}

// inspectList renders strings as Elixir's inspect renders a list of
// them: ["a", "b"].
func inspectList(items ...string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		parts[i] = inspectString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func inspectString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\r", `\r`)
	return `"` + r.Replace(s) + `"`
}

// describe renders a spec as Realtime's params_to_log does in its
// subscription errors: [event: *, schema: public, table: todos,
// filters: [{"id", "eq", "5", false}], select: nil].
func describe(event, schema, table string, filters []filter) string {
	fs := make([]string, len(filters))
	for i, f := range filters {
		value := strings.Join(f.Values, ",")
		if f.Op == "in" {
			value = "{" + value + "}" // Realtime stores in's list as an array literal
		}
		fs[i] = "{" + inspectString(f.Column) + ", " + inspectString(f.Op) + ", " + inspectString(value) + ", false}"
	}
	return fmt.Sprintf("[event: %s, schema: %s, table: %s, filters: [%s], select: nil]",
		event, schema, table, strings.Join(fs, ", "))
}

// holds says whether a row passes all of a spec's filters, as
// realtime.is_visible_through_filters decides: every condition true, or
// every one unknown (a null or absent value: coalesce(sum(...) =
// count(1), true) in Realtime's SQL, the migration
// null_passes_filters).
func holds(filters []filter, row map[string]jsonValue) bool {
	trues, unknowns := 0, 0
	for i := range filters {
		f := &filters[i]
		v, ok := row[f.Column]
		if !ok || v.isNull() {
			unknowns++
			continue
		}
		if f.test(v) {
			trues++
		}
	}
	return trues == len(filters) || unknowns == len(filters)
}

// test applies one condition to a present, non-null value.
func (f *filter) test(v jsonValue) bool {
	switch f.Op {
	case "in":
		for _, c := range f.canon {
			if compare(v, c) == 0 {
				return true
			}
		}
		return false
	case "eq":
		return compare(v, f.canon[0]) == 0
	case "neq":
		return compare(v, f.canon[0]) != 0
	}
	c := compare(v, f.canon[0])
	switch f.Op {
	case "lt":
		return c < 0
	case "lte":
		return c <= 0
	case "gt":
		return c > 0
	default: // gte
		return c >= 0
	}
}
