package apirequest

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// Range is the window of rows one level of a read returns: OFFSET and
// LIMIT. Limit nil means no limit.
//
// Offset may be negative (offset=-1): PostgREST passes it on and
// PostgreSQL rejects it. Limit may be zero or negative in Query.Ranges
// for embedded levels (tasks.limit=-1), likewise passed on; for the root,
// RootRange turns those into PGRST103.
type Range struct {
	Offset int64
	Limit  *int64
}

// IsAll says whether r selects every row: no offset, no limit. A PUT must
// have an all-rows root range (else PGRST114).
func (r Range) IsAll() bool { return r.Offset == 0 && r.Limit == nil }

// rangeHeaderRE is PostgREST's pattern for the Range header: first-last
// or first-, item positions from 0, no unit prefix.
var rangeHeaderRE = regexp.MustCompile(`^([0-9]+)-([0-9]*)$`)

// ParseRangeHeader reads a Range request header ("0-24", "10-"), which
// PostgREST takes in items whatever Range-Unit says. ok is false when the
// value does not have that form; the header is then ignored. When the
// last position is below the first, limit is zero or negative and
// RootRange reports PGRST103.
func ParseRangeHeader(value string) (offset int64, limit *int64, ok bool) {
	m := rangeHeaderRE.FindStringSubmatch(value)
	if m == nil {
		return 0, nil, false
	}
	offset = digitsToInt(m[1])
	if m[2] == "" {
		return offset, nil, true
	}
	n := satSub(satAdd(digitsToInt(m[2]), 1), offset)
	return offset, &n, true
}

// RootRange combines the Range header with the root level's limit and
// offset (ranges[""] of Query.Ranges) the way PostgREST's getRanges does:
// the result is the intersection of both windows, limit=0 always yields
// an empty window (Offset 0, Limit 0) whatever the header says, and any
// other empty window is PGRST103: "lower boundary must be lower than or
// equal to the upper boundary" when the header itself is empty, "Limit
// should be greater than or equal to zero" otherwise.
//
// rangeHeader is the Range header of a GET request, "" when absent;
// PostgREST ignores the header on every other method, so callers pass ""
// for them.
func RootRange(rangeHeader string, ranges map[string]Range) (Range, *apierr.Error) {
	header := allBounds()
	if rangeHeader != "" {
		if off, lim, ok := ParseRangeHeader(rangeHeader); ok {
			header = boundsOf(Range{Offset: off, Limit: lim})
		}
	}
	limit := allBounds()
	if r, ok := ranges[""]; ok {
		limit = boundsOf(r)
	}
	if limit.limitZero() {
		zero := int64(0)
		return Range{Offset: 0, Limit: &zero}, nil
	}
	if top, ok := intersect(header, limit); ok && !top.empty() {
		return top.toRange(), nil
	}
	if header.empty() {
		return Range{}, apierr.InvalidRange(apierr.RangeLowerGTUpper)
	}
	return Range{}, apierr.InvalidRange(apierr.RangeNegativeLimit)
}

// bounds is a PostgREST NonnegRange: rows lo..hi, or lo.. when unbounded.
type bounds struct {
	lo, hi  int64
	bounded bool
}

func allBounds() bounds { return bounds{} }

func boundsOf(r Range) bounds {
	if r.Limit == nil {
		return bounds{lo: r.Offset}
	}
	return bounds{lo: r.Offset, hi: satAdd(r.Offset, satAdd(*r.Limit, -1)), bounded: true}
}

func (b bounds) empty() bool { return b.bounded && b.hi < b.lo }

// limitZero is PostgREST's hasLimitZero: the window ends at -1, which
// only limit=0 without an offset produces.
func (b bounds) limitZero() bool { return b.bounded && b.hi == -1 }

// count is PostgREST's rangeLimit with its fallback: the number of rows,
// 0 when unbounded.
func (b bounds) count() int64 {
	if !b.bounded {
		return 0
	}
	return satSub(satAdd(b.hi, 1), b.lo)
}

func (b bounds) toRange() Range {
	if !b.bounded {
		return Range{Offset: b.lo}
	}
	n := b.count()
	return Range{Offset: b.lo, Limit: &n}
}

// intersect is Data.Ranged's rangeIntersection; ok is false when either
// side is empty (the result is then the canonical empty range).
func intersect(a, b bounds) (bounds, bool) {
	if a.empty() || b.empty() {
		return bounds{}, false
	}
	out := bounds{lo: max(a.lo, b.lo)}
	switch {
	case a.bounded && b.bounded:
		out.hi, out.bounded = min(a.hi, b.hi), true
	case a.bounded:
		out.hi, out.bounded = a.hi, true
	case b.bounded:
		out.hi, out.bounded = b.hi, true
	}
	return out, true
}

// satAdd adds without wrapping: results beyond int64 stop at its ends,
// so absurd limits stay absurd instead of changing sign.
func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// satSub is a-b without wrapping.
func satSub(a, b int64) int64 {
	if b == math.MinInt64 {
		if a >= 0 {
			return math.MaxInt64
		}
		return a + math.MaxInt64 + 1
	}
	return satAdd(a, -b)
}

func digitsToInt(ds string) int64 {
	n, _ := new(big.Int).SetString(ds, 10)
	return saturate(n)
}

func saturate(n *big.Int) int64 {
	switch {
	case n.IsInt64():
		return n.Int64()
	case n.Sign() > 0:
		return math.MaxInt64
	}
	return math.MinInt64
}

// readInteger is Haskell's readMaybe at type Integer, which PostgREST
// uses for limit and offset: surrounding spaces and parentheses are
// allowed, a minus sign may be separated from its number, and 0x/0o
// prefixes select hexadecimal and octal. Anything else is not a number.
func readInteger(s string) (int64, bool) {
	if len(s) > 0 && len(s) < 19 && strings.Trim(s, "0123456789") == "" {
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	r := &intReader{in: []rune(s)}
	n, ok := r.expr()
	if !ok {
		return 0, false
	}
	r.skipSpace()
	if r.i != len(r.in) {
		return 0, false
	}
	return saturate(n), true
}

type intReader struct {
	in []rune
	i  int
}

func (r *intReader) skipSpace() {
	for r.i < len(r.in) && hsIsSpace(r.in[r.i]) {
		r.i++
	}
}

func (r *intReader) expr() (*big.Int, bool) {
	r.skipSpace()
	if r.i < len(r.in) && r.in[r.i] == '(' {
		r.i++
		n, ok := r.expr()
		r.skipSpace()
		if !ok || r.i >= len(r.in) || r.in[r.i] != ')' {
			return nil, false
		}
		r.i++
		return n, true
	}
	// A run of symbol characters is one lexeme; only "-" is a sign.
	start := r.i
	for r.i < len(r.in) && strings.ContainsRune("!#$%&*+./<=>?@\\^|-~:", r.in[r.i]) {
		r.i++
	}
	switch string(r.in[start:r.i]) {
	case "":
		return r.number()
	case "-":
		r.skipSpace()
		n, ok := r.number()
		if !ok {
			return nil, false
		}
		return n.Neg(n), true
	}
	return nil, false
}

// number reads an integer literal; a fraction or exponent makes the
// lexeme a non-integer, which Integer's reader rejects.
func (r *intReader) number() (*big.Int, bool) {
	rest := r.in[r.i:]
	digitsIn := func(set string, from int) int {
		k := from
		for k < len(rest) && strings.ContainsRune(set, rest[k]) {
			k++
		}
		return k - from
	}
	const dec, hex, oct = "0123456789", "0123456789abcdefABCDEF", "01234567"
	if len(rest) >= 3 && rest[0] == '0' {
		for _, base := range []struct {
			marks  string
			digits string
			radix  int
		}{{"xX", hex, 16}, {"oO", oct, 8}} {
			if strings.ContainsRune(base.marks, rest[1]) {
				if n := digitsIn(base.digits, 2); n > 0 {
					v, _ := new(big.Int).SetString(string(rest[2:2+n]), base.radix)
					r.i += 2 + n
					return v, true
				}
			}
		}
	}
	n := digitsIn(dec, 0)
	if n == 0 {
		return nil, false
	}
	after := rest[n:]
	if len(after) >= 2 && after[0] == '.' && strings.ContainsRune(dec, after[1]) {
		return nil, false
	}
	if len(after) >= 2 && (after[0] == 'e' || after[0] == 'E') {
		exp := after[1:]
		if exp[0] == '+' || exp[0] == '-' {
			exp = exp[1:]
		}
		if len(exp) > 0 && strings.ContainsRune(dec, exp[0]) {
			return nil, false
		}
	}
	v, _ := new(big.Int).SetString(string(rest[:n]), 10)
	r.i += n
	return v, true
}
