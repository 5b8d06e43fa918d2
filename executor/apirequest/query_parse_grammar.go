package apirequest

import (
	"strings"
	"unicode"
)

// PostgREST's query-string grammar (PostgREST.ApiRequest.QueryParams),
// parser for parser, on the engine in query_parse_engine.go. The shape of
// each parser (where try, labels and lexemes sit) decides the error
// messages, so it follows the Haskell closely rather than idiomatically.

var ws = chars(0, func(r rune) bool { return r == ' ' || r == '\t' }, oneOf(" \t"))

func lexeme[T any](p parser[T]) parser[T] {
	return func(s pstate) reply[T] {
		c := begin(s)
		step(&c, ws)
		v := step(&c, p)
		step(&c, ws)
		return done(&c, v)
	}
}

// seq2 runs a then b and keeps both values.
func seq2[A, B any](a parser[A], b parser[B]) parser[struct {
	a A
	b B
}] {
	type pair = struct {
		a A
		b B
	}
	return func(s pstate) reply[pair] {
		c := begin(s)
		x := step(&c, a)
		y := step(&c, b)
		return done(&c, pair{x, y})
	}
}

// left is a <* b; right is a *> b.
func left[A, B any](a parser[A], b parser[B]) parser[A] {
	return fmap(seq2(a, b), func(p struct {
		a A
		b B
	}) A {
		return p.a
	})
}

func right[A, B any](a parser[A], b parser[B]) parser[B] {
	return fmap(seq2(a, b), func(p struct {
		a A
		b B
	}) B {
		return p.b
	})
}

var pDelimiter = label(char('.'), "delimiter (.)")

var pIdentifier = fmap(chars(1, isIdentifierChar, alt(letter, digit, oneOf("_ $"))), func(s string) string {
	return strings.Trim(s, " ")
})

func isIdentifierChar(r rune) bool {
	return unicode.IsLetter(r) || r >= '0' && r <= '9' || r == '_' || r == ' ' || r == '$'
}

// noneOfChars is chars over noneOf(set).
func noneOfChars(min int, set string) parser[string] {
	return chars(min, func(r rune) bool { return !strings.ContainsRune(set, r) }, noneOf(set))
}

var pQuotedValue = fmap(between(char('"'), char('"'), many(alt(noneOf(`\"`), right(char('\\'), anyChar)))),
	func(rs []rune) string { return string(rs) })

func sepByDash(ident parser[string]) parser[string] {
	dash := try(right(char('-'), notFollowedBy(char('>'))))
	return fmap(sepBy1(ident, dash), func(parts []string) string { return strings.Join(parts, "-") })
}

// fieldNameGrammar is PostgREST's pFieldName. pFieldName runs it when
// errors are tracked and otherwise scans, with the same outcome.
var fieldNameGrammar = label(alt(pQuotedValue, sepByDash(pIdentifier)), "field name (* or [a..z0..9_$])")

func pFieldName(s pstate) reply[string] {
	if s.src.track {
		return fieldNameGrammar(s)
	}
	if s.src.nameAt == s.i+1 {
		return s.src.name
	}
	r := scanFieldName(s)
	s.src.nameAt, s.src.name = s.i+1, r
	return r
}

// scanFieldName is fieldNameGrammar without error messages: a quoted
// name with backslash escapes, or identifiers joined by dashes that do
// not start an arrow, each identifier trimmed of spaces.
func scanFieldName(s pstate) reply[string] {
	in, i, pos := s.src.in, s.i, s.pos
	take := func() rune {
		c := in[i]
		pos = pos.advance(c)
		i++
		return c
	}
	fail := func() reply[string] { return reply[string]{consumed: i > s.i, err: perr{pos: pos}} }
	if i < len(in) && in[i] == '"' {
		take()
		var b strings.Builder
		for {
			if i >= len(in) {
				return fail()
			}
			switch c := take(); c {
			case '"':
				st := pstate{s.src, i, pos}
				return reply[string]{v: b.String(), st: st, ok: true, consumed: true, err: st.unknownErr()}
			case '\\':
				if i >= len(in) {
					return fail()
				}
				b.WriteRune(take())
			default:
				b.WriteRune(c)
			}
		}
	}
	var parts []string
	for {
		start := i
		for i < len(in) && isIdentifierChar(in[i]) {
			take()
		}
		if i == start {
			return fail()
		}
		parts = append(parts, strings.Trim(string(in[start:i]), " "))
		if i < len(in) && in[i] == '-' && (i+1 == len(in) || in[i+1] != '>') {
			take()
			continue
		}
		st := pstate{s.src, i, pos}
		return reply[string]{v: strings.Join(parts, "-"), st: st, ok: true, consumed: true, err: st.unknownErr()}
	}
}

var pJsonKeyName = label(alt(pQuotedValue, sepByDash(fmap(noneOfChars(1, "(-:.,>)"), hsStrip))),
	"any non reserved character different from: .,>()")

func lookAheadStr(lit string) parser[struct{}] { return try(void(lookAhead(str(lit)))) }

var pJsonArrow = alt(try(str("->>")), try(str("->")))

var pJsonOperand = alt(try(pJsonIndex), try(fmap(pJsonKeyName, func(k string) JSONStep {
	return JSONStep{Key: k}
})))

var pJsonPath = many(func(s pstate) reply[JSONStep] {
	c := begin(s)
	arrow := step(&c, pJsonArrow)
	operand := step(&c, pJsonOperand)
	operand.Arrow = arrow
	return done(&c, operand)
})

var pJsonIndexEnd = alt(lookAheadStr("->"), lookAheadStr("::"), lookAheadStr("."), lookAheadStr(","), try(eof))

var pSign = option('+', char('-'))

var pDigits = chars(1, func(r rune) bool { return r >= '0' && r <= '9' }, digit)

var pJsonIndex parser[JSONStep] = func(s pstate) reply[JSONStep] {
	c := begin(s)
	sign := step(&c, pSign)
	key := step(&c, pDigits)
	step(&c, pJsonIndexEnd)
	if sign == '-' {
		key = "-" + key
	}
	return done(&c, JSONStep{Key: key, IsIndex: true})
}

var pField = lexeme(fmap(seq2(pFieldName, option[[]JSONStep](nil, pJsonPath)), func(p struct {
	a string
	b []JSONStep
}) Field {
	return Field{Name: p.a, JSONPath: p.b}
}))

// treePath is an embed path and the field at its end.
type treePath struct {
	path  []string
	field Field
}

var pTreePath = fmap(seq2(sepBy1(pFieldName, pDelimiter), option[[]JSONStep](nil, pJsonPath)), func(p struct {
	a []string
	b []JSONStep
}) treePath {
	var path []string
	if len(p.a) > 1 {
		path = p.a[:len(p.a)-1]
	}
	return treePath{path, Field{Name: p.a[len(p.a)-1], JSONPath: p.b}}
})

var aliasSeparator = right(char(':'), notFollowedBy(char(':')))

var pAlias = optional(try(left(pFieldName, aliasSeparator)))

// pCast is ::type. Unlike a field name, a type name takes only ASCII
// letters, digits and _, one optional schema before a dot, and [] per
// array dimension: the text after :: becomes SQL (as a checked type
// name), so no space, $, quote or other punctuation may pass. A dot
// followed by a name and ( starts an aggregate (amount::int.sum()), not a
// schema-qualified type.
var pCast = optional(right(str("::"), pTypeName))

var pTypeNamePart = chars(1, isTypeNameChar, alt(asciiLetter, digit, oneOf("_")))

var pTypeName parser[string] = func(s pstate) reply[string] {
	c := begin(s)
	name := step(&c, pTypeNamePart)
	qualified := step(&c, optional(try(right(char('.'), left(pTypeNamePart, notFollowedBy(char('(')))))))
	dims := step(&c, many(str("[]")))
	if qualified != nil {
		name += "." + *qualified
	}
	return done(&c, name+strings.Repeat("[]", len(dims)))
}

// isTypeNameChar is what a part of a type name is made of.
func isTypeNameChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
}

// embedParam is one !hint or !inner/!left.
type embedParam struct{ hint, join string }

var pEmbedParam = right(char('!'), alt(
	try(as(str("left"), embedParam{join: "left"})),
	try(as(str("inner"), embedParam{join: "inner"})),
	try(fmap(pFieldName, func(h string) embedParam { return embedParam{hint: h} }))))

var pEmbedParams = fmap(seq2(optional(pEmbedParam), optional(pEmbedParam)), func(p struct {
	a *embedParam
	b *embedParam
}) embedParam {
	var out embedParam
	for _, prm := range []*embedParam{p.a, p.b} {
		if prm == nil {
			continue
		}
		if out.hint == "" {
			out.hint = prm.hint
		}
		if out.join == "" {
			out.join = prm.join
		}
	}
	return out
})

var (
	pOpenAhead     = lookAheadStr("(")
	pEllipsis      = str("...")
	pStar          = str("*")
	pCountCall     = str("count()")
	pAggregateCall = optional(try(left(right(char('.'), pAggregation), str("()"))))
)

var pSelectEnd = alt(lookAheadStr(")"), lookAheadStr(","), try(eof))

var pRelationSelect = lexeme(func(s pstate) reply[SelectItem] {
	c := begin(s)
	alias := step(&c, pAlias)
	name := step(&c, pFieldName)
	if name == "count" {
		step(&c, zero[struct{}]()) // PostgREST's guard: count( is the aggregate
	}
	prm := step(&c, pEmbedParams)
	step(&c, pOpenAhead)
	return done(&c, SelectItem{Kind: SelectEmbed, Relation: name, Hint: prm.hint, JoinType: prm.join, Alias: deref(alias)})
})

var pSpreadRelationSelect = lexeme(func(s pstate) reply[SelectItem] {
	c := begin(s)
	step(&c, pEllipsis)
	name := step(&c, pFieldName)
	prm := step(&c, pEmbedParams)
	step(&c, pOpenAhead)
	return done(&c, SelectItem{Kind: SelectSpread, Relation: name, Hint: prm.hint, JoinType: prm.join})
})

var pAggregation = alt(str("sum"), str("avg"), str("count"), try(str("max")), try(str("min")))

var pFieldSelect = lexeme(alt(
	try(func(s pstate) reply[SelectItem] {
		c := begin(s)
		step(&c, pStar)
		step(&c, pSelectEnd)
		return done(&c, SelectItem{Kind: SelectStar, Field: Field{Name: "*"}})
	}),
	try(func(s pstate) reply[SelectItem] {
		c := begin(s)
		alias := step(&c, pAlias)
		step(&c, pCountCall)
		aggCast := step(&c, pCast)
		step(&c, pSelectEnd)
		return done(&c, SelectItem{Kind: SelectAggregate, Field: Field{Name: "*"}, Aggregate: "count",
			AggregateCast: deref(aggCast), Alias: deref(alias)})
	}),
	func(s pstate) reply[SelectItem] {
		c := begin(s)
		alias := step(&c, pAlias)
		fld := step(&c, pField)
		cast := step(&c, pCast)
		agg := step(&c, pAggregateCall)
		aggCast := step(&c, pCast)
		step(&c, pSelectEnd)
		it := SelectItem{Kind: SelectColumn, Field: fld, Alias: deref(alias), Cast: deref(cast),
			AggregateCast: deref(aggCast)}
		if agg != nil {
			it.Kind, it.Aggregate = SelectAggregate, *agg
		}
		return done(&c, it)
	}))

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// The select tree and the logic tree refer to themselves; package-level
// parsers cannot, so these two are tied in init.
var (
	pFieldForest parser[[]SelectItem]
	pLogicTree   parser[LogicNode]
)

func init() {
	fieldTree := alt(withChildren(pSpreadRelationSelect), withChildren(pRelationSelect), pFieldSelect)
	pFieldForest = sepBy(fieldTree, lexeme(char(',')))

	children := right(lexeme(char('(')),
		left(nested(sepBy1(pLogicTreeRef, lexeme(char(','))), maxLogicDepth, logicTooDeep), lexeme(char(')'))))
	logicExpr := func(s pstate) reply[LogicNode] {
		c := begin(s)
		neg := step(&c, pNot)
		op := step(&c, pLogicOp)
		children := step(&c, children)
		if c.failed {
			return done(&c, LogicNode{}) // no tree to build
		}
		return done(&c, LogicNode{Tree: &LogicTree{Negated: neg, Op: op, Children: children}})
	}
	pLogicTree = alt(fmap(try(pLogicFilter), func(f Filter) LogicNode { return LogicNode{Filter: &f} }), logicExpr)
}

// pFieldForestRef and pLogicTreeRef reach the parsers tied in init from
// the parsers they are built of.
func pFieldForestRef(s pstate) reply[[]SelectItem] { return pFieldForest(s) }

func pLogicTreeRef(s pstate) reply[LogicNode] { return pLogicTree(s) }

var openParen, closeParen = char('('), char(')')

func withChildren(head parser[SelectItem]) parser[SelectItem] {
	head = try(head)
	children := between(openParen, closeParen, nested(pFieldForestRef, maxEmbedDepth, embedsTooDeep))
	return func(s pstate) reply[SelectItem] {
		c := begin(s)
		it := step(&c, head)
		kids := step(&c, children)
		it.Children = kids
		if it.Children == nil {
			it.Children = []SelectItem{}
		}
		return done(&c, it)
	}
}

// operation is an operator and its value, before it is placed in a Filter.
type operation struct {
	negated    bool
	op         string
	quantifier string
	language   string
	value      string
	values     []string
	noOp       bool // an RPC argument: the value had no operator
}

var simpleOperator = label(alt(
	try(str("neq")), try(str("cs")), try(str("cd")), try(str("ov")), try(str("sl")),
	try(str("sr")), try(str("nxr")), try(str("nxl")), try(str("adj"))), "unknown single value operator")

var quantOperator = label(alt(
	try(str("eq")), try(str("gte")), try(str("gt")), try(str("lte")), try(str("lt")),
	try(str("like")), try(str("ilike")), try(str("match")), try(str("imatch"))), "unknown single value operator")

// ciString matches lit in any mix of lower and upper case, one character
// at a time as PostgREST's ciString does.
func ciString(lit string) parser[string] {
	var chars []parser[rune]
	for _, r := range lit {
		chars = append(chars, alt(char(r), char(unicode.ToUpper(r))))
	}
	return func(s pstate) reply[string] {
		c := begin(s)
		for _, p := range chars {
			step(&c, p)
		}
		return done(&c, lit)
	}
}

var pIsVal = label(alt(try(ciString("null")), try(ciString("not_null")), try(ciString("true")),
	try(ciString("false")), try(ciString("unknown"))), "isVal: (null, not_null, true, false, unknown)")

var pSingleVal = chars(0, func(rune) bool { return true }, anyChar)

var pListElement = alt(
	try(left(pQuotedValue, notFollowedBy(noneOf(",)")))),
	noneOfChars(0, ",)"))

var pListVal = right(lexeme(char('(')), left(sepBy1(pListElement, char(',')), lexeme(char(')'))))

var pLogicSingleVal = alt(
	try(left(pQuotedValue, notFollowedBy(noneOf(",)")))),
	try(fmap(seq2(right(str("{"), noneOfChars(0, "{}")), str("}")), func(p struct {
		a string
		b string
	}) string {
		return "{" + p.a + "}"
	})),
	noneOfChars(0, ",)"))

func keyword(lit string) parser[struct{}] { return void(try(right(str(lit), pDelimiter))) }

// pOpExpr is an optional not. and an operation; sval reads single values.
func pOpExpr(sval parser[string]) parser[operation] {
	pIn := fmap(right(keyword("in"), pListVal), func(vs []string) operation {
		return operation{op: "in", values: vs}
	})
	pIs := fmap(right(keyword("is"), pIsVal), func(v string) operation {
		return operation{op: "is", value: v}
	})
	pIsDist := fmap(right(keyword("isdistinct"), sval), func(v string) operation {
		return operation{op: "isdistinct", value: v}
	})
	ftsOperator := alt(try(str("fts")), try(str("plfts")), try(str("phfts")), try(str("wfts")))
	ftsLanguage := optional(try(between(char('('), char(')'), pIdentifier)))
	quantifier := optional(try(between(char('('), char(')'), alt(try(str("any")), str("all")))))
	pFts := func(s pstate) reply[operation] {
		c := begin(s)
		op := step(&c, ftsOperator)
		lang := step(&c, ftsLanguage)
		step(&c, pDelimiter)
		v := step(&c, sval)
		return done(&c, operation{op: op, language: deref(lang), value: v})
	}
	pSimpleOp := func(s pstate) reply[operation] {
		c := begin(s)
		op := step(&c, simpleOperator)
		step(&c, pDelimiter)
		v := step(&c, sval)
		return done(&c, operation{op: op, value: v})
	}
	pQuantOp := func(s pstate) reply[operation] {
		c := begin(s)
		op := step(&c, quantOperator)
		quant := step(&c, quantifier)
		step(&c, pDelimiter)
		v := step(&c, sval)
		return done(&c, operation{op: op, quantifier: deref(quant), value: v})
	}
	pOperation := label(alt(pIn, pIs, pIsDist, try(pFts), try(pSimpleOp), try(pQuantOp)), "operator (eq, gt, ...)")
	pNot := alt(try(as(right(str("not"), pDelimiter), true)), pure(false))
	return func(s pstate) reply[operation] {
		c := begin(s)
		neg := step(&c, pNot)
		op := step(&c, pOperation)
		op.negated = neg
		return done(&c, op)
	}
}

var pFilterOpExpr = pOpExpr(pSingleVal)

// pRPCOpExpr is the filter parser of a GET on a function: a value that
// does not begin with an operator is an argument (noOp; the caller keeps
// the whole value).
var pRPCOpExpr = alt(pFilterOpExpr, pure(operation{noOp: true}))

var pOrderEnd = alt(try(void(lookAhead(char(',')))), try(eof))

var pOrdDir = alt(try(right(pDelimiter, str("asc"))), try(right(pDelimiter, str("desc"))))

var pNulls = alt(try(right(pDelimiter, str("nullsfirst"))), try(right(pDelimiter, str("nullslast"))))

var pOrderNulls = alt(left(optional(pNulls), pOrderEnd), as(pOrderEnd, (*string)(nil)))

var pOrdDirOpt = optional(pOrdDir)

func orderTail(head parser[OrderTerm]) parser[OrderTerm] {
	return func(s pstate) reply[OrderTerm] {
		c := begin(s)
		t := step(&c, head)
		dir := step(&c, pOrdDirOpt)
		nulls := step(&c, pOrderNulls)
		t.Direction = deref(dir)
		t.Nulls = strings.TrimPrefix(deref(nulls), "nulls")
		return done(&c, t)
	}
}

var pOrderTerm = orderTail(fmap(pField, func(f Field) OrderTerm { return OrderTerm{Field: f} }))

var pOrderRelationTerm = orderTail(fmap(seq2(pFieldName, between(char('('), char(')'), pField)), func(p struct {
	a string
	b Field
}) OrderTerm {
	return OrderTerm{Relation: p.a, Field: p.b}
}))

var pOrder = sepBy1(lexeme(alt(try(pOrderRelationTerm), pOrderTerm)), char(','))

var pLogicFilter = fmap(seq2(left(pField, pDelimiter), pOpExpr(pLogicSingleVal)), func(p struct {
	a Field
	b operation
}) Filter {
	return p.b.filter(nil, p.a)
})

var pNot = label(alt(try(as(right(str("not"), pDelimiter), true)), pure(false)), "negation operator (not)")

var pLogicOp = label(alt(try(str("and")), str("or")), "logic operator (and, or)")

var pColumns = sepBy1(pFieldName, lexeme(char(',')))

// filter places an operation on a field, turning like/ilike's * into %.
func (o operation) filter(path []string, f Field) Filter {
	v := o.value
	if o.op == "like" || o.op == "ilike" {
		v = strings.ReplaceAll(v, "*", "%")
	}
	return Filter{EmbedPath: path, Field: f, Negated: o.negated, Op: o.op, Quantifier: o.quantifier,
		Language: o.language, Value: v, Values: o.values}
}
