package plan

import (
	"fmt"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// PostgreSQL's own limits that a request could reach. Past them the server
// fails with an error of class 54 (program limit exceeded), which the
// contract answers with 500: the request is refused before instead, as the
// client's error it is.
const (
	// maxTargetColumns is MaxTupleAttributeNumber: the most columns one
	// select list may have.
	maxTargetColumns = 1664
	// maxArrayDims is MAXDIM: the most dimensions an array may have.
	maxArrayDims = 6
)

// checkSelectWidth refuses a level whose select list would have more
// columns than PostgreSQL allows. A star counts the relation's columns and
// a spread the columns it adds.
func checkSelectWidth(r *Read) *apierr.Error {
	n := 0
	for _, it := range r.Output {
		switch {
		case it.Field != nil && it.Field.Ref.Star:
			n += len(r.Relation.Columns)
		case it.Field != nil:
			n++
		case it.Embed.Spread:
			n += len(it.Embed.Plan.Exposed())
		case it.Embed.Shown():
			n++
		}
	}
	if n <= maxTargetColumns {
		return nil
	}
	return apierr.QueryParam("failed to parse select parameter",
		fmt.Sprintf("%q selects %d columns; PostgreSQL allows at most %d in one select list", r.Alias, n, maxTargetColumns))
}

// checkFilterValue refuses a value PostgreSQL would fail on for a reason
// of its own making rather than the data's: an array literal nested deeper
// than arrays may be, and a text search configuration given as a number
// (regconfig reads digits as an object id and fails inside the server).
func checkFilterValue(f *Filter) *apierr.Error {
	if f.Language != "" && isDigits(f.Language) {
		return &apierr.Error{Status: 400, Code: "42704",
			Message: fmt.Sprintf("text search configuration %q does not exist", f.Language)}
	}
	if len(f.Ref.JSONPath) > 0 || (f.Quantifier == "" && !strings.HasSuffix(f.Ref.Type, "[]")) {
		return nil
	}
	for _, v := range append([]string{f.Value}, f.Values...) {
		if d := arrayLiteralDepth(v); d > maxArrayDims {
			return apierr.QueryParam("failed to parse filter",
				fmt.Sprintf("the value has %d array dimensions; PostgreSQL allows at most %d", d, maxArrayDims))
		}
	}
	return nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// arrayLiteralDepth is the deepest nesting of braces in an array literal,
// outside double-quoted elements, as PostgreSQL's array input reads it.
func arrayLiteralDepth(s string) int {
	depth, deepest, quoted := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == '}':
			depth--
		}
	}
	return deepest
}
