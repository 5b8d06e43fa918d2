package apirequest

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// A small parser-combinator engine that follows Parsec's rules: a parser
// either consumed input or not, an alternative is tried only when the
// previous one failed without consuming, and errors carry a position and a
// list of messages that merge the way Parsec merges them. PostgREST's query
// grammar is written with Parsec and clients see Parsec's error text in
// PGRST100 responses, so reproducing those rules reproduces the messages.

// srcPos is a Parsec source position: line and column, both from 1.
type srcPos struct{ line, col int }

func (a srcPos) cmp(b srcPos) int {
	if a.line != b.line {
		return a.line - b.line
	}
	return a.col - b.col
}

// advance moves the position over c the way Parsec's updatePosChar does.
func (a srcPos) advance(c rune) srcPos {
	switch c {
	case '\n':
		return srcPos{a.line + 1, 1}
	case '\t':
		return srcPos{a.line, a.col + 8 - (a.col-1)%8}
	}
	return srcPos{a.line, a.col + 1}
}

// msgKind orders messages as Parsec's Message constructors do.
type msgKind uint8

const (
	sysUnExpect msgKind = iota
	unExpect
	expect
	message
)

// msg is one Parsec message. Its text is built only when an error is
// reported: most failures are merged away by a later alternative, so the
// found character is kept as a rune and shown on demand.
type msg struct {
	kind msgKind
	text string
	tok  rune
	show showTok
}

type showTok uint8

const (
	showNone   showTok = iota // text as is
	showString                // Haskell's show [tok]: "x"
	showChar                  // Haskell's show tok: 'x'
)

func (m msg) String() string {
	switch m.show {
	case showString:
		return hsShowString(string(m.tok))
	case showChar:
		return hsShowChar(m.tok)
	}
	return m.text
}

// msgTree holds an error's messages without copying on every merge: a
// leaf, the concatenation of two trees, or a relabelled tree (an expect
// label in place of the tree's own expect messages). nil is no messages.
type msgTree struct {
	m       msg
	a, b    *msgTree
	concat  bool
	relabel bool
}

func leaf(ms ...msg) *msgTree {
	var t *msgTree
	for _, m := range ms {
		t = join(t, &msgTree{m: m})
	}
	return t
}

func join(a, b *msgTree) *msgTree {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return &msgTree{a: a, b: b, concat: true}
}

// list flattens t in Parsec's order.
func (t *msgTree) list(out []msg, dropExpect bool) []msg {
	switch {
	case t == nil:
	case t.concat:
		out = t.b.list(t.a.list(out, dropExpect), dropExpect)
	case t.relabel:
		if !dropExpect {
			out = append(out, t.m)
		}
		out = t.a.list(out, true)
	case !(dropExpect && t.m.kind == expect):
		out = append(out, t.m)
	}
	return out
}

// perr is a Parsec ParseError. No messages means "unknown error".
type perr struct {
	pos  srcPos
	msgs *msgTree
}

func (e perr) unknown() bool { return e.msgs == nil }

// mergeErr is Parsec's mergeError: a meaningful error beats an empty one,
// the further position wins, equal positions pool their messages.
func mergeErr(e1, e2 perr) perr {
	switch {
	case e2.unknown() && !e1.unknown():
		return e1
	case e1.unknown() && !e2.unknown():
		return e2
	}
	switch c := e1.pos.cmp(e2.pos); {
	case c > 0:
		return e1
	case c < 0:
		return e2
	}
	return perr{e1.pos, join(e1.msgs, e2.msgs)}
}

// bindErr is the merge bind applies after a step that consumed nothing.
func bindErr(prev, cur perr) perr {
	if prev.unknown() {
		return cur
	}
	return mergeErr(prev, cur)
}

// withExpect is Parsec's setErrorMessage (Expect label): every expect
// message is replaced by the one label.
func withExpect(e perr, label string) perr {
	return perr{e.pos, &msgTree{m: msg{kind: expect, text: label}, a: e.msgs, relabel: true}}
}

// source is the input of one run. Error messages are built only when
// track is set: control flow never depends on them, so runParser first
// parses without them and re-runs with them only to report a failure.
type source struct {
	in    []rune
	track bool
	// nameAt-1 is the position of the last field name read without
	// tracking, name its reply: the grammar reads a select item's name
	// up to five times as it tries alias, embed and column in turn.
	nameAt int
	name   reply[string]
	// depth is how deep the tree being read nests where the parser
	// stands, and overLimit the limit's error once nested found it
	// passed: the parse is then over, whatever its reply.
	depth     int
	overLimit *apierr.Error
}

// pstate is where the parser stands in its source.
type pstate struct {
	src *source
	i   int
	pos srcPos
}

func (s pstate) atEnd() bool { return s.i >= len(s.src.in) }

func (s pstate) at() rune { return s.src.in[s.i] }

func (s pstate) unknownErr() perr { return perr{pos: s.pos} }

// reply is a parser's answer: the four Parsec outcomes are ok × consumed.
type reply[T any] struct {
	v        T
	st       pstate
	err      perr
	ok       bool
	consumed bool
}

type parser[T any] func(pstate) reply[T]

func failAt[T any](s pstate, msgs ...msg) reply[T] {
	if !s.src.track {
		return reply[T]{err: perr{pos: s.pos}}
	}
	return reply[T]{err: perr{s.pos, leaf(msgs...)}}
}

// pure succeeds with v without consuming.
func pure[T any](v T) parser[T] {
	return func(s pstate) reply[T] {
		return reply[T]{v: v, st: s, ok: true, err: s.unknownErr()}
	}
}

// zero is Parsec's mzero (guard False): an empty failure without messages.
func zero[T any]() parser[T] {
	return func(s pstate) reply[T] { return reply[T]{err: s.unknownErr()} }
}

// satisfy consumes one character that f accepts.
func satisfy(f func(rune) bool) parser[rune] {
	return func(s pstate) reply[rune] {
		if s.atEnd() {
			return failAt[rune](s, msg{kind: sysUnExpect})
		}
		c := s.at()
		if !f(c) {
			return failAt[rune](s, msg{kind: sysUnExpect, tok: c, show: showString})
		}
		n := pstate{s.src, s.i + 1, s.pos.advance(c)}
		return reply[rune]{v: c, st: n, ok: true, consumed: true, err: n.unknownErr()}
	}
}

// anyToken consumes one character without moving the position, as
// Parsec's anyToken does (it is what eof looks at).
func anyToken(s pstate) reply[rune] {
	if s.atEnd() {
		return failAt[rune](s, msg{kind: sysUnExpect})
	}
	n := pstate{s.src, s.i + 1, s.pos}
	return reply[rune]{v: s.at(), st: n, ok: true, consumed: true, err: n.unknownErr()}
}

func char(c rune) parser[rune] {
	return label(satisfy(func(r rune) bool { return r == c }), hsShowString(string(c)))
}

func noneOf(set string) parser[rune] {
	return satisfy(func(r rune) bool { return !strings.ContainsRune(set, r) })
}

func oneOf(set string) parser[rune] {
	return satisfy(func(r rune) bool { return strings.ContainsRune(set, r) })
}

var anyChar = satisfy(func(rune) bool { return true })

var letter = label(satisfy(unicode.IsLetter), "letter")

// asciiLetter is a letter of a type name, which takes ASCII only.
var asciiLetter = label(satisfy(func(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }), "letter")

var digit = label(satisfy(func(r rune) bool { return r >= '0' && r <= '9' }), "digit")

// str is Parsec's string: it reports failures at its start position,
// after consuming when the first character matched.
func str(lit string) parser[string] {
	want := []rune(lit)
	shown := hsShowString(lit)
	return func(s pstate) reply[string] {
		in := s.src.in
		for k, w := range want {
			if s.i+k >= len(in) {
				r := failAt[string](s, msg{kind: expect, text: shown}, msg{kind: sysUnExpect})
				r.consumed = k > 0
				return r
			}
			if c := in[s.i+k]; c != w {
				r := failAt[string](s, msg{kind: expect, text: shown}, msg{kind: sysUnExpect, tok: c, show: showString})
				r.consumed = k > 0
				return r
			}
		}
		n := s
		for _, w := range want {
			n.pos = n.pos.advance(w)
		}
		n.i += len(want)
		return reply[string]{v: lit, st: n, ok: true, consumed: true, err: n.unknownErr()}
	}
}

// try turns a failure after consuming into a failure without consuming.
func try[T any](p parser[T]) parser[T] {
	return func(s pstate) reply[T] {
		r := p(s)
		if !r.ok {
			r.consumed = false
		}
		return r
	}
}

// lookAhead runs p and, when it succeeds, consumes nothing.
func lookAhead[T any](p parser[T]) parser[T] {
	return func(s pstate) reply[T] {
		r := p(s)
		if r.ok {
			return reply[T]{v: r.v, st: s, ok: true, err: s.unknownErr()}
		}
		return r
	}
}

// label is Parsec's <?>: when p consumed nothing its expectations become l.
func label[T any](p parser[T], l string) parser[T] {
	return func(s pstate) reply[T] {
		r := p(s)
		if s.src.track && !r.consumed && (!r.ok || !r.err.unknown()) {
			r.err = withExpect(r.err, l)
		}
		return r
	}
}

// alt is Parsec's <|>, folded from the left.
func alt[T any](ps ...parser[T]) parser[T] {
	return func(s pstate) reply[T] {
		r := ps[0](s)
		for _, p := range ps[1:] {
			if r.ok || r.consumed {
				return r
			}
			r2 := p(s)
			if !r2.consumed {
				r2.err = mergeErr(r.err, r2.err)
			}
			r = r2
		}
		return r
	}
}

func fmap[A, B any](p parser[A], f func(A) B) parser[B] {
	return func(s pstate) reply[B] {
		r := p(s)
		if !r.ok {
			return reply[B]{err: r.err, consumed: r.consumed}
		}
		return reply[B]{v: f(r.v), st: r.st, err: r.err, ok: true, consumed: r.consumed}
	}
}

func as[A, B any](p parser[A], v B) parser[B] {
	return fmap(p, func(A) B { return v })
}

func void[A any](p parser[A]) parser[struct{}] { return as(p, struct{}{}) }

func many[T any](p parser[T]) parser[[]T] {
	return func(s pstate) reply[[]T] {
		var xs []T
		consumed := false
		for {
			r := p(s)
			if !r.ok {
				if r.consumed {
					return reply[[]T]{consumed: true, err: r.err}
				}
				return reply[[]T]{v: xs, st: s, ok: true, consumed: consumed, err: r.err}
			}
			xs = append(xs, r.v)
			s = r.st
			if !r.consumed {
				// Parsec rejects many over a parser that accepts the
				// empty string; none of the grammar's parsers does.
				return reply[[]T]{v: xs, st: s, ok: true, consumed: consumed, err: r.err}
			}
			consumed = true
		}
	}
}

// chars is many (min 0) or many1 (min 1) over the one-character parser
// p, returning the text, for the runs of characters the grammar reads
// everywhere. accept must say exactly when p succeeds; the scan then
// needs no reply per character, and p runs only to describe the failure
// where the run stops, when errors are tracked.
func chars(min int, accept func(rune) bool, p parser[rune]) parser[string] {
	return func(s pstate) reply[string] {
		in, i, pos := s.src.in, s.i, s.pos
		for i < len(in) && accept(in[i]) {
			pos = pos.advance(in[i])
			i++
		}
		stop := pstate{s.src, i, pos}
		err := stop.unknownErr()
		if s.src.track {
			err = p(stop).err
		}
		if i-s.i < min {
			return reply[string]{err: err}
		}
		return reply[string]{v: string(in[s.i:i]), st: stop, ok: true, consumed: i > s.i, err: err}
	}
}

func sepBy1[T, S any](p parser[T], sep parser[S]) parser[[]T] {
	rest := many(func(s pstate) reply[T] {
		c := begin(s)
		step(&c, sep)
		x := step(&c, p)
		return done(&c, x)
	})
	return func(s pstate) reply[[]T] {
		c := begin(s)
		x := step(&c, p)
		xs := step(&c, rest)
		if c.failed {
			return done[[]T](&c, nil) // no list to build
		}
		return done(&c, append([]T{x}, xs...))
	}
}

func sepBy[T, S any](p parser[T], sep parser[S]) parser[[]T] {
	return alt(sepBy1(p, sep), pure[[]T](nil))
}

// optional is Parsec's optionMaybe; a nil pointer is Nothing.
func optional[T any](p parser[T]) parser[*T] {
	return alt(fmap(p, func(v T) *T { return &v }), pure[*T](nil))
}

func option[T any](def T, p parser[T]) parser[T] {
	return alt(p, pure(def))
}

func between[O, C, T any](open parser[O], close parser[C], p parser[T]) parser[T] {
	return func(s pstate) reply[T] {
		c := begin(s)
		step(&c, open)
		v := step(&c, p)
		step(&c, close)
		return done(&c, v)
	}
}

// notFollowedBy succeeds when p fails; when p succeeds the character it
// found is reported as unexpected, shown as Haskell shows a Char.
func notFollowedBy(p parser[rune]) parser[struct{}] {
	// found always fails: when p fails, and when p succeeds, at the
	// step that reports what p found.
	found := func(s pstate) reply[struct{}] {
		c := begin(s)
		v := step(&c, try(p))
		step(&c, func(s pstate) reply[struct{}] {
			return failAt[struct{}](s, msg{kind: unExpect, tok: v, show: showChar})
		})
		return done(&c, struct{}{})
	}
	return try(alt(found, pure(struct{}{})))
}

var eof = label(notFollowedBy(anyToken), "end of input")

// chain runs parsers one after another with the error bookkeeping of
// Parsec's bind: a step that consumed replaces the pending error, a step
// that consumed nothing merges with it. The first step that fails ends
// the sequence: later steps do not run and give their zero value, and
// done reports the failure, so a sequence is written as its steps alone.
type chain struct {
	st       pstate
	err      perr
	consumed bool
	failed   bool
}

func begin(s pstate) chain { return chain{st: s, err: s.unknownErr()} }

func step[T any](c *chain, p parser[T]) T {
	var z T
	if c.failed {
		return z
	}
	r := p(c.st)
	if r.consumed {
		c.consumed = true
		c.err = r.err
	} else {
		c.err = bindErr(c.err, r.err)
	}
	if !r.ok {
		c.failed = true
		return z
	}
	c.st = r.st
	return r.v
}

// done is the sequence's reply: v when every step succeeded, else the
// failure of the step that ended it.
func done[T any](c *chain, v T) reply[T] {
	if c.failed {
		return reply[T]{err: c.err, consumed: c.consumed}
	}
	return reply[T]{v: v, st: c.st, err: c.err, ok: true, consumed: c.consumed}
}

// runParser is Parsec's parse: p over input, no end-of-input check (the
// PostgREST parsers that want one ask for it). The error is rendered as
// PostgREST's QPError: message is the position with the source name,
// details the Parsec error text on one line.
func runParser[T any](p parser[T], name string, input string) (T, *qpError) {
	src := &source{in: []rune(input)}
	r := p(pstate{src: src, pos: srcPos{1, 1}})
	var z T
	if src.overLimit != nil {
		return z, &qpError{overLimit: src.overLimit}
	}
	if r.ok {
		return r.v, nil
	}
	src.track = true
	r = p(pstate{src: src, pos: srcPos{1, 1}})
	if r.ok {
		// Unreachable while the scanning shortcuts match the grammar
		// (tests hold them to it); the grammar's answer stands.
		return r.v, nil
	}
	return z, &qpError{
		message: `"` + name + `" (line ` + strconv.Itoa(r.err.pos.line) + ", column " + strconv.Itoa(r.err.pos.col) + ")",
		details: hsStrip(strings.ReplaceAll(showErrorMessages(r.err.msgs.list(nil, false)), "\n", " ")),
	}
}

// qpError is PostgREST's QPError: the PGRST100 message and details; or,
// when overLimit is set, the limit the input passed (query_limits.go).
type qpError struct {
	message, details string
	overLimit        *apierr.Error
}

// showErrorMessages is Parsec's showErrorMessages with PostgREST's words.
func showErrorMessages(msgs []msg) string {
	if len(msgs) == 0 {
		return "unknown parse error"
	}
	sorted := slices.Clone(msgs)
	slices.SortStableFunc(sorted, func(a, b msg) int { return int(a.kind) - int(b.kind) })
	var sys, unexp, exp, other []string
	for _, m := range sorted {
		switch m.kind {
		case sysUnExpect:
			sys = append(sys, m.String())
		case unExpect:
			unexp = append(unexp, m.String())
		case expect:
			exp = append(exp, m.String())
		default:
			other = append(other, m.String())
		}
	}
	showSys := ""
	if len(unexp) == 0 && len(sys) > 0 {
		if sys[0] == "" {
			showSys = "unexpected end of input"
		} else {
			showSys = "unexpected " + sys[0]
		}
	}
	parts := clean([]string{showSys, showMany("unexpected", unexp), showMany("expecting", exp), showMany("", other)})
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("\n")
		b.WriteString(p)
	}
	return b.String()
}

func showMany(pre string, texts []string) string {
	ms := clean(texts)
	if len(ms) == 0 {
		return ""
	}
	if pre == "" {
		return commasOr(ms)
	}
	return pre + " " + commasOr(ms)
}

func commasOr(ms []string) string {
	if len(ms) == 1 {
		return ms[0]
	}
	return strings.Join(ms[:len(ms)-1], ", ") + " or " + ms[len(ms)-1]
}

// clean drops empty strings and duplicates, keeping first occurrences.
func clean(ms []string) []string {
	var out []string
	for _, m := range ms {
		if m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// hsShowChar is Haskell's show for a Char: 'x'.
func hsShowChar(c rune) string {
	if c == '\'' {
		return `'\''`
	}
	return "'" + hsLitChar(c, "'") + "'"
}

// hsShowString is Haskell's show for a String: "x".
func hsShowString(s string) string {
	rs := []rune(s)
	var b strings.Builder
	b.WriteByte('"')
	for k, c := range rs {
		if c == '"' {
			b.WriteString(`\"`)
			continue
		}
		next := `"`
		if k+1 < len(rs) {
			next = string(rs[k+1])
		}
		b.WriteString(hsLitChar(c, next))
	}
	b.WriteByte('"')
	return b.String()
}

var asciiNames = [...]string{"NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a", "b", "t", "n", "v", "f", "r", "SO", "SI",
	"DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US"}

// hsLitChar is Haskell's showLitChar; next is what the output continues
// with, for the \& that keeps a numeric escape from running on.
func hsLitChar(c rune, next string) string {
	switch {
	case c > 0x7f:
		s := `\` + strconv.Itoa(int(c))
		if next != "" && next[0] >= '0' && next[0] <= '9' {
			s += `\&`
		}
		return s
	case c == 0x7f:
		return `\DEL`
	case c == '\\':
		return `\\`
	case c >= ' ':
		return string(c)
	case c == 0x0e:
		if strings.HasPrefix(next, "H") {
			return `\SO\&`
		}
		return `\SO`
	}
	return `\` + asciiNames[c]
}

// hsIsSpace is Haskell's Data.Char.isSpace.
func hsIsSpace(c rune) bool {
	if c <= 0x377 {
		return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0
	}
	return unicode.Is(unicode.Zs, c)
}

// hsStrip is Data.Text.strip.
func hsStrip(s string) string { return strings.TrimFunc(s, hsIsSpace) }
