package apirequest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fast paths for the shapes most query strings take: plain names,
// op.value filters, in lists without quotes, order terms, and selects of
// plain names with aliases, casts, hints, join types, embeds and spreads.
// Each returns ok=false for anything else, and the caller runs the
// grammar, which alone knows every corner and every error message. For
// an input a fast path accepts it must give exactly what the grammar
// gives; TestFastPathsAgreeWithGrammar and FuzzParseQuery hold it to that.

// isSimpleName says whether s is a name the grammar reads as itself: one
// identifier without spaces, dashes, quotes or JSON arrows.
func isSimpleName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r == ' ' || !isIdentifierChar(r) {
			return false
		}
	}
	return true
}

// fastTreePath reads a key of plain names; a key without a dot, the
// usual filter, is read without allocating.
func fastTreePath(key string) (treePath, bool) {
	dot := strings.LastIndexByte(key, '.')
	tp := treePath{field: Field{Name: key[dot+1:]}}
	if !isSimpleName(tp.field.Name) {
		return treePath{}, false
	}
	if dot >= 0 {
		tp.path = strings.Split(key[:dot], ".")
		for _, p := range tp.path {
			if !isSimpleName(p) {
				return treePath{}, false
			}
		}
	}
	return tp, true
}

var fastOps = map[string]bool{
	"eq": true, "neq": true, "gt": true, "gte": true, "lt": true, "lte": true,
	"like": true, "ilike": true, "match": true, "imatch": true,
	"cs": true, "cd": true, "ov": true, "sl": true, "sr": true, "nxr": true, "nxl": true, "adj": true,
	"isdistinct": true, "fts": true, "plfts": true, "phfts": true, "wfts": true,
}

// fastOpExpr reads [not.]op.value for the operators without quantifier
// or language, is, and in with an unquoted list.
func fastOpExpr(v string) (operation, bool) {
	neg := false
	if rest, ok := strings.CutPrefix(v, "not."); ok {
		neg, v = true, rest
	}
	op, rest, found := strings.Cut(v, ".")
	if !found {
		return operation{}, false
	}
	switch {
	case fastOps[op]:
		return operation{negated: neg, op: op, value: rest}, true
	case op == "is":
		for _, val := range []string{"null", "not_null", "true", "false", "unknown"} {
			if hasPrefixCI(rest, val) {
				return operation{negated: neg, op: "is", value: val}, true
			}
		}
	case op == "in":
		inner, ok := strings.CutPrefix(rest, "(")
		end := strings.IndexByte(inner, ')')
		if !ok || end < 0 || strings.ContainsRune(inner[:end], '"') {
			return operation{}, false
		}
		values := strings.Split(strings.TrimLeft(inner[:end], " \t"), ",")
		return operation{negated: neg, op: "in", values: values}, true
	}
	return operation{}, false
}

// hasPrefixCI is the grammar's ciString: each letter of lower (ASCII) in
// lower or upper case.
func hasPrefixCI(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if c := s[i]; c != lower[i] && rune(c) != unicode.ToUpper(rune(lower[i])) {
			return false
		}
	}
	return true
}

// fastOrder reads terms of the form name[.asc|.desc][.nullsfirst|.nullslast].
func fastOrder(v string) ([]OrderTerm, bool) {
	return fastOrderInto(nil, v)
}

// fastOrderInto is fastOrder appending to terms, which is given room for
// every term when it has none.
func fastOrderInto(terms []OrderTerm, v string) ([]OrderTerm, bool) {
	if terms == nil {
		terms = make([]OrderTerm, 0, strings.Count(v, ",")+1)
	}
	for rest, more := v, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, ",")
		name, tail, dotted := strings.Cut(part, ".")
		if !isSimpleName(name) {
			return nil, false
		}
		// At most two words follow the name.
		var store [2]string
		words := store[:0]
		for dotted {
			if len(words) == len(store) {
				return nil, false
			}
			var w string
			w, tail, dotted = strings.Cut(tail, ".")
			words = append(words, w)
		}
		t := OrderTerm{Field: Field{Name: name}}
		if len(words) > 0 && (words[0] == "asc" || words[0] == "desc") {
			t.Direction, words = words[0], words[1:]
		}
		if len(words) > 0 && (words[0] == "nullsfirst" || words[0] == "nullslast") {
			t.Nulls, words = strings.TrimPrefix(words[0], "nulls"), words[1:]
		}
		if len(words) > 0 {
			return nil, false
		}
		terms = append(terms, t)
	}
	return terms, true
}

// fastSelect reads a select of plain names: items are *, [alias:]name
// [::cast], and [alias:]name[!param[!param]](...) or ...name[!...](...)
// with params a hint or inner/left. No spaces, JSON paths or aggregates.
func fastSelect(v string) ([]SelectItem, bool) {
	r := selectScanner{s: v}
	items, ok := r.items()
	if !ok || r.i != len(r.s) {
		return nil, false
	}
	return items, true
}

type selectScanner struct {
	s string
	i int
	// depth is how deep the embed being read nests; past maxEmbedDepth
	// the scanner defers to the grammar, which refuses it.
	depth int
}

func (r *selectScanner) peek(lit string) bool { return strings.HasPrefix(r.s[r.i:], lit) }

func (r *selectScanner) eat(lit string) bool {
	if r.peek(lit) {
		r.i += len(lit)
		return true
	}
	return false
}

func (r *selectScanner) name() (string, bool) {
	start := r.i
	for r.i < len(r.s) {
		c, size := rune(r.s[r.i]), 1
		if c >= 0x80 {
			c, size = utf8.DecodeRuneInString(r.s[r.i:])
		}
		if c == ' ' || !isIdentifierChar(c) {
			break
		}
		r.i += size
	}
	return r.s[start:r.i], r.i > start
}

// items reads a comma-separated list up to ) or the end; an empty list
// is allowed as the grammar allows it.
func (r *selectScanner) items() ([]SelectItem, bool) {
	// Room for the items up to the next comma count, within reason: the
	// commas may be a nested list's.
	items := make([]SelectItem, 0, min(strings.Count(r.s[r.i:], ",")+1, 8))
	if r.i == len(r.s) || r.peek(")") {
		return items, true
	}
	for {
		it, ok := r.item()
		if !ok {
			return nil, false
		}
		items = append(items, it)
		if !r.eat(",") {
			return items, true
		}
	}
}

func (r *selectScanner) atItemEnd() bool { return r.i == len(r.s) || r.peek(",") || r.peek(")") }

func (r *selectScanner) item() (SelectItem, bool) {
	if r.eat("*") {
		return SelectItem{Kind: SelectStar, Field: Field{Name: "*"}}, r.atItemEnd()
	}
	if r.eat("...") {
		name, ok := r.name()
		if !ok {
			return SelectItem{}, false
		}
		return r.embed(SelectItem{Kind: SelectSpread, Relation: name})
	}
	name, ok := r.name()
	if !ok {
		return SelectItem{}, false
	}
	var alias string
	if r.peek(":") && !r.peek("::") {
		r.i++
		alias = name
		if name, ok = r.name(); !ok {
			return SelectItem{}, false
		}
	}
	if r.peek("!") || r.peek("(") {
		if name == "count" {
			return SelectItem{}, false
		}
		return r.embed(SelectItem{Kind: SelectEmbed, Relation: name, Alias: alias})
	}
	it := SelectItem{Kind: SelectColumn, Field: Field{Name: name}, Alias: alias}
	if r.eat("::") {
		if it.Cast, ok = r.typeName(); !ok {
			return SelectItem{}, false
		}
	}
	return it, r.atItemEnd()
}

// typeName reads a cast's type as pTypeName does: name[.name] then any
// []. A dot it does not take (an aggregate's .sum(), a bad name) is left
// for the caller, which then finds no item end and defers to the grammar.
func (r *selectScanner) typeName() (string, bool) {
	start := r.i
	if !r.typeNamePart() {
		return "", false
	}
	if r.peek(".") {
		dot := r.i
		r.i++
		if !r.typeNamePart() || r.peek("(") {
			r.i = dot
		}
	}
	for r.eat("[]") {
	}
	return r.s[start:r.i], true
}

func (r *selectScanner) typeNamePart() bool {
	start := r.i
	for r.i < len(r.s) && isTypeNameChar(rune(r.s[r.i])) {
		r.i++
	}
	return r.i > start
}

// embed reads up to two !params and the parenthesised children.
func (r *selectScanner) embed(it SelectItem) (SelectItem, bool) {
	for n := 0; r.eat("!"); n++ {
		word, ok := r.name()
		if !ok || n == 2 {
			return SelectItem{}, false
		}
		switch {
		case word == "left" || word == "inner":
			if it.JoinType == "" {
				it.JoinType = word
			}
		case strings.HasPrefix(word, "left") || strings.HasPrefix(word, "inner"):
			return SelectItem{}, false
		case it.Hint == "":
			it.Hint = word
		}
	}
	if !r.eat("(") || r.depth >= maxEmbedDepth {
		return SelectItem{}, false
	}
	r.depth++
	children, ok := r.items()
	r.depth--
	if !ok || !r.eat(")") {
		return SelectItem{}, false
	}
	it.Children = children
	return it, r.atItemEnd()
}
