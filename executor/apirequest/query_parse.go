package apirequest

import (
	"slices"
	"strings"
	"unicode/utf8"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// ParseQuery parses the query string of a request on a table or view, or
// of a POST on a function: every parameter that is not reserved must be a
// filter (key=op.value), anything else is PGRST100.
//
// rawQuery is the undecoded query string without its "?", as in
// url.URL.RawQuery. Parameters are separated by & or ; and decoded one
// component at a time, + as a space, as PostgREST (Wai) decodes them; a
// parameter without "=" is ignored except where it hides a later select,
// columns or on_conflict, as in PostgREST.
//
// Errors are reported in PostgREST's order: order, logic trees, columns,
// select, filters, on_conflict, then the embed paths of limit/offset. A
// select or and/or nested past its limit is refused where it is read, and
// the limits that count are checked last (query_limits.go): 400 PGRST191.
func ParseQuery(rawQuery string) (*Query, *apierr.Error) {
	return parseQuery(&queryAlloc{}, rawQuery, false, true)
}

// ParseRPCQuery parses the query string of a GET or HEAD on a function.
// It differs from ParseQuery in one rule, PostgREST's: a non-reserved
// parameter whose value does not begin with an operator is a function
// argument (Query.RPCParams) rather than an error. A value that begins
// with one (name=eq.x, or name=in.x which then fails to parse) is a
// filter on the function's result. The argument's name is the key's last
// field name (a.b=1 gives b).
func ParseRPCQuery(rawQuery string) (*Query, *apierr.Error) {
	return parseQuery(&queryAlloc{}, rawQuery, true, true)
}

// queryParam is one key=value of the query string, decoded.
type queryParam struct {
	key, value string
	hasValue   bool
}

// parseQuery parses into a, which must be new and zero, with the fast
// paths when fast is set; tests turn them off to check that they change
// nothing.
func parseQuery(a *queryAlloc, rawQuery string, rpcRead, fast bool) (*Query, *apierr.Error) {
	// Room for the parameters of most query strings, on the stack.
	var paramStore, valuedStore [16]queryParam
	params := splitQuery(paramStore[:0], rawQuery)
	valued := valuedStore[:0]
	for _, p := range params {
		if p.hasValue {
			valued = append(valued, p)
		}
	}
	q := &a.q

	for _, p := range valued {
		if !endingIn(p.key, "order") {
			continue
		}
		tp, err := parseTreePath(p.key, fast)
		if err != nil {
			return nil, err.apiError()
		}
		// The usual order, the first parameter with one term, is
		// allocated with its spec.
		var one *oneOrder
		var terms []OrderTerm
		if q.Order == nil && !strings.Contains(p.value, ",") {
			one = &oneOrder{}
			terms = one.term[:0]
		}
		terms, ok := fastOrderInto(terms, p.value)
		if !fast || !ok {
			terms, err = runParser(pOrder, "failed to parse order ("+p.value+")", p.value)
			if err != nil {
				return nil, err.apiError()
			}
		} else if one != nil {
			q.Order = one.spec[:0]
		}
		q.Order = append(q.Order, OrderSpec{EmbedPath: tp.path, Terms: terms})
	}

	for _, p := range valued {
		if !endingIn(p.key, "and", "or") {
			continue
		}
		tree, err := parseLogic(p)
		if err != nil {
			return nil, err.apiError()
		}
		q.Logic = append(q.Logic, tree)
	}

	if v, ok := lookupParam(params, "columns"); ok {
		cols, err := runParser(pColumns, "failed to parse columns parameter ("+v+")", v)
		if err != nil {
			return nil, err.apiError()
		}
		q.Columns = uniq(cols)
	}

	sel, ok := lookupParam(params, "select")
	if !ok {
		sel = "*"
	}
	var items []SelectItem
	if sel == "*" && fast {
		// Field by field: a and its star are new and zero.
		a.star[0].Kind, a.star[0].Field.Name = SelectStar, "*"
		items, ok = a.star[:], true
	} else {
		items, ok = fastSelect(sel)
	}
	if !fast || !ok {
		var err *qpError
		if items, err = runParser(pFieldForest, "failed to parse select parameter ("+sel+")", sel); err != nil {
			return nil, err.apiError()
		}
	}
	if items == nil {
		items = []SelectItem{}
	}
	q.Select = items
	q.Filters = a.filter[:0]

	for _, p := range valued {
		if !isFilter(p.key) {
			continue
		}
		tp, err := parseTreePath(p.key, fast)
		if err != nil {
			return nil, err.apiError()
		}
		op, ok := fastOpExpr(p.value)
		if !fast || !ok {
			expr := pFilterOpExpr
			if rpcRead {
				expr = pRPCOpExpr
			}
			if op, err = runParser(expr, "failed to parse filter ("+p.value+")", p.value); err != nil {
				return nil, err.apiError()
			}
		}
		if op.noOp {
			q.RPCParams = append(q.RPCParams, Param{Name: tp.field.Name, Value: p.value})
			continue
		}
		q.Filters = append(q.Filters, op.filter(tp.path, tp.field))
	}

	if v, ok := lookupParam(params, "on_conflict"); ok {
		cols, err := runParser(pColumns, "failed to parse on_conflict parameter ("+v+")", v)
		if err != nil {
			return nil, err.apiError()
		}
		q.OnConflict = cols
	}

	ranges, rerr := queryRanges(valued, fast)
	if rerr != nil {
		return nil, rerr.apiError()
	}
	q.Ranges = ranges
	if len(q.Filters) == 0 {
		q.Filters = nil
	}
	if err := checkQueryLimits(q); err != nil {
		return nil, err
	}
	return q, nil
}

// oneOrder is an order parameter of one term, allocated as one.
type oneOrder struct {
	spec [1]OrderSpec
	term [1]OrderTerm
}

// queryAlloc is a Query with room for its usual parts, allocated as one:
// the select item of a query without select (*), and one filter.
type queryAlloc struct {
	q      Query
	star   [1]SelectItem
	filter [1]Filter
}

func parseTreePath(key string, fast bool) (treePath, *qpError) {
	if tp, ok := fastTreePath(key); fast && ok {
		return tp, nil
	}
	return runParser(pTreePath, "failed to parse tree path ("+key+")", key)
}

func (e *qpError) apiError() *apierr.Error {
	if e.overLimit != nil {
		return e.overLimit
	}
	return apierr.QueryParam(e.message, e.details)
}

// parseLogic reads an and/or parameter. The key's last name is the
// operator, a "not" anywhere in it negates, the other names are the embed
// path; the operator is then prefixed to the value so that or=(...) reads
// as or(...), as PostgREST does. Error positions count from that prefix.
func parseLogic(p queryParam) (LogicTree, *qpError) {
	path, err := runParser(sepBy1(pFieldName, pDelimiter), "failed to parse logic path ("+p.key+")", p.key)
	if err != nil {
		return LogicTree{}, err
	}
	op := path[len(path)-1]
	var embed []string
	for _, name := range path[:len(path)-1] {
		if name != "not" {
			embed = append(embed, name)
		}
	}
	if slices.Contains(path, "not") {
		op = "not." + op
	}
	node, err := runParser(pLogicTree, "failed to parse logic tree ("+p.value+")", op+p.value)
	if err != nil {
		return LogicTree{}, err
	}
	tree := node.Tree
	if tree == nil {
		// or=.eq.1 reads as the filter "or".eq.1; a one-filter tree
		// means the same.
		tree = &LogicTree{Op: "and", Children: []LogicNode{node}}
	}
	tree.EmbedPath = embed
	return *tree, nil
}

// queryRanges reads limit and offset, per level, as PostgREST does: a
// value that is not an integer leaves its side unbounded, the last of
// repeated keys wins, and a level with both has offset..offset+limit-1,
// where a limit that did not parse counts as 0.
func queryRanges(valued []queryParam, fast bool) (map[string]Range, *qpError) {
	// The levels in the order their keys first appear; few, so a list.
	var store [4]rangeEntry
	entries := store[:0]
	for _, p := range valued {
		switch {
		case endingIn(p.key, "limit"):
			b := allBounds()
			if n, ok := readInteger(p.value); ok {
				b = bounds{lo: 0, hi: satAdd(n, -1), bounded: true}
			}
			var e *rangeEntry
			entries, e = rangeEntryOf(entries, p.key)
			e.limit, e.hasLimit = b, true
		case endingIn(p.key, "offset"):
			b := allBounds()
			if n, ok := readInteger(p.value); ok {
				b = bounds{lo: n}
			}
			var e *rangeEntry
			key := "limit" // the root's, without a concatenation
			if p.key != "offset" {
				key = strings.TrimSuffix(p.key, "offset") + "limit"
			}
			entries, e = rangeEntryOf(entries, key)
			e.offset, e.hasOffset = b, true
		}
	}
	if len(entries) == 0 {
		return nil, nil
	}
	ranges := make(map[string]Range, len(entries))
	for _, e := range entries {
		tp, err := parseTreePath(e.key, fast)
		if err != nil {
			return nil, err
		}
		var b bounds
		switch {
		case !e.hasOffset:
			b = e.limit
		case !e.hasLimit:
			b = e.offset
		default:
			b = bounds{lo: e.offset.lo, hi: satAdd(e.offset.lo, satAdd(e.limit.count(), -1)), bounded: true}
		}
		ranges[strings.Join(tp.path, ".")] = b.toRange()
	}
	return ranges, nil
}

// rangeEntry is the limit and offset given for one level, keyed by its
// limit parameter's name.
type rangeEntry struct {
	key                 string
	limit, offset       bounds
	hasLimit, hasOffset bool
}

// rangeEntryOf finds key's entry in entries, adding it when absent.
func rangeEntryOf(entries []rangeEntry, key string) ([]rangeEntry, *rangeEntry) {
	for i := range entries {
		if entries[i].key == key {
			return entries, &entries[i]
		}
	}
	entries = append(entries, rangeEntry{key: key})
	return entries, &entries[len(entries)-1]
}

// endingIn says whether the key's last dot-separated word is one of words.
func endingIn(key string, words ...string) bool {
	return slices.Contains(words, key[strings.LastIndexByte(key, '.')+1:])
}

// isFilter says whether a parameter is a filter (or, for GET on a
// function, possibly an argument): not reserved at any level.
func isFilter(key string) bool {
	if key == "select" || key == "columns" || key == "on_conflict" {
		return false
	}
	return !endingIn(key, "order", "limit", "offset", "and", "or")
}

// lookupParam finds the first parameter named key; a first occurrence
// without "=" counts as absent, as in PostgREST.
func lookupParam(params []queryParam, key string) (string, bool) {
	for _, p := range params {
		if p.key == key {
			return p.value, p.hasValue
		}
	}
	return "", false
}

func uniq(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// splitQuery splits and decodes a raw query string the way Wai's
// parseQueryReplacePlus does: & and ; separate parameters, the first =
// separates key from value, + is a space, %XX a byte, and a % not
// followed by two hex digits stays as it is.
func splitQuery(out []queryParam, raw string) []queryParam {
	for raw != "" {
		part := raw
		if i := strings.IndexAny(raw, "&;"); i >= 0 {
			part, raw = raw[:i], raw[i+1:]
		} else {
			raw = ""
		}
		k, v, has := strings.Cut(part, "=")
		out = append(out, queryParam{key: urlDecode(k), value: urlDecode(v), hasValue: has})
	}
	return out
}

// urlDecode decodes one component. Invalid UTF-8 becomes U+FFFD, byte by
// byte, so every later stage sees valid text.
func urlDecode(s string) string {
	if !strings.ContainsAny(s, "+%") {
		return validUTF8(s)
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '+':
			b = append(b, ' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return validUTF8(string(b))
}

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s))
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
