package jwtauth

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The deprecated jwt_role_claim_key syntax of PostgREST 14 and before,
// which PostgREST v16.2 still reads (with a warning at start) when a key
// is no JSONPath query. Its grammar, as PostgREST parses it:
//
//	key    = step { step }
//	step   = "." name | "." '"' { any but '"' } '"'    a member
//	       | "[" digit { digit } "]"                   an array index
//	       | "[?(@" op '"' { any but '"' } '"' ")]"    a filter, last only
//	name   = { letter | number | "_" | "$" | "@" }     at least one
//	op     = "==" | "!=" | "^==" | "==^" | "*=="       spaces around it
//
// A filter picks the first string of an array that equals, differs from,
// starts with, ends with or contains the value.
type deprecatedPath []deprecatedStep

// deprecatedStep is one step: a member (key), an index, or a filter (op
// and value).
type deprecatedStep struct {
	key     string
	index   int
	isIndex bool
	op      string // "" unless a filter
	value   string
}

// deprecatedOps are the filter operators in the order PostgREST tries
// them ("==^" before "==", which it starts with).
var deprecatedOps = []string{"==^", "==", "!=", "^==", "*=="}

// errNoClaimKey is the answer to an empty key.
var errNoClaimKey = errors.New(`a key starts with "$" (JSONPath) or "." (the deprecated syntax)`)

// parseDeprecatedPath parses a key in the deprecated syntax.
func parseDeprecatedPath(s string) (deprecatedPath, error) {
	if s == "" {
		return nil, errNoClaimKey
	}
	var p deprecatedPath
	for rest := s; rest != ""; {
		var step deprecatedStep
		var err error
		switch {
		case rest[0] == '.':
			step, rest, err = parseDeprecatedMember(rest[1:])
		case strings.HasPrefix(rest, "[?("):
			step, rest, err = parseDeprecatedFilter(rest[3:])
			if err == nil && rest != "" {
				err = fmt.Errorf("a filter must end the key, not be followed by %q", rest)
			}
		case rest[0] == '[':
			step, rest, err = parseDeprecatedIndex(rest[1:])
		default:
			err = fmt.Errorf(`unexpected %q: a step starts with "." or "["`, rest)
		}
		if err != nil {
			return nil, err
		}
		p = append(p, step)
	}
	return p, nil
}

// parseDeprecatedMember reads what follows a ".": a name, or a key in
// double quotes that holds anything but a double quote (no escapes).
func parseDeprecatedMember(s string) (deprecatedStep, string, error) {
	if strings.HasPrefix(s, `"`) {
		key, rest, err := cutDeprecatedQuoted(s)
		return deprecatedStep{key: key}, rest, err
	}
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '_' && r != '$' && r != '@' {
			break
		}
		n += size
	}
	if n == 0 {
		return deprecatedStep{}, "", fmt.Errorf("expected a claim name at %q", s)
	}
	return deprecatedStep{key: s[:n]}, s[n:], nil
}

// cutDeprecatedQuoted reads a double-quoted value at the start of s.
func cutDeprecatedQuoted(s string) (value, rest string, err error) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", fmt.Errorf("expected a double-quoted value at %q", s)
	}
	end := strings.IndexByte(s[1:], '"')
	if end < 0 {
		return "", "", fmt.Errorf("unterminated quoted value %q", s)
	}
	return s[1 : 1+end], s[2+end:], nil
}

// parseDeprecatedIndex reads what follows a "[": ASCII digits, then "]".
func parseDeprecatedIndex(s string) (deprecatedStep, string, error) {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	if n == 0 || n >= len(s) || s[n] != ']' {
		return deprecatedStep{}, "", fmt.Errorf(`expected an array index and "]" at %q`, s)
	}
	i, err := strconv.Atoi(s[:n])
	if err != nil {
		return deprecatedStep{}, "", fmt.Errorf("array index %s: %w", s[:n], err)
	}
	return deprecatedStep{index: i, isIndex: true}, s[n+1:], nil
}

// parseDeprecatedFilter reads what follows "[?(": @, an operator, a
// double-quoted value, then ")]".
func parseDeprecatedFilter(s string) (deprecatedStep, string, error) {
	rest, ok := strings.CutPrefix(s, "@")
	if !ok {
		return deprecatedStep{}, "", fmt.Errorf(`a filter compares "@", not %q`, s)
	}
	rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
	op := ""
	for _, o := range deprecatedOps {
		if strings.HasPrefix(rest, o) {
			op = o
			break
		}
	}
	if op == "" {
		return deprecatedStep{}, "", fmt.Errorf("expected one of the operators ==, !=, ^==, ==^, *== at %q", rest)
	}
	rest = strings.TrimLeftFunc(rest[len(op):], unicode.IsSpace)
	value, rest, err := cutDeprecatedQuoted(rest)
	if err != nil {
		return deprecatedStep{}, "", err
	}
	rest, ok = strings.CutPrefix(rest, ")]")
	if !ok {
		return deprecatedStep{}, "", fmt.Errorf(`expected ")]" to close the filter at %q`, rest)
	}
	return deprecatedStep{op: op, value: value}, rest, nil
}

// lookup walks the path through decoded claims. found is false when a step
// finds nothing: no such member, an index past the end, no string the
// filter matches, or a value that is not the object or array the step
// needs.
func (p deprecatedPath) lookup(claims map[string]any) (value any, found bool) {
	var cur any = claims
	for _, step := range p {
		switch {
		case step.op != "":
			arr, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			if cur, ok = firstMatch(arr, step.op, step.value); !ok {
				return nil, false
			}
		case step.isIndex:
			arr, ok := cur.([]any)
			if !ok || step.index >= len(arr) {
				return nil, false
			}
			cur = arr[step.index]
		default:
			obj, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = obj[step.key]; !ok {
				return nil, false
			}
		}
	}
	return cur, true
}

// firstMatch is the first string of arr the filter op value keeps; other
// values are passed over.
func firstMatch(arr []any, op, value string) (string, bool) {
	for _, v := range arr {
		s, ok := v.(string)
		if !ok {
			continue
		}
		var match bool
		switch op {
		case "==":
			match = s == value
		case "!=":
			match = s != value
		case "^==":
			match = strings.HasPrefix(s, value)
		case "==^":
			match = strings.HasSuffix(s, value)
		case "*==":
			match = strings.Contains(s, value)
		}
		if match {
			return s, true
		}
	}
	return "", false
}

// String writes the path as PostgREST's deprecation warning shows it:
// every key quoted, ."roles"[0][?(@ == "author")], each quoted value as
// Haskell's show writes a string.
func (p deprecatedPath) String() string {
	var b strings.Builder
	for _, step := range p {
		switch {
		case step.op != "":
			b.WriteString("[?(@ " + step.op + " " + haskellShow(step.value) + ")]")
		case step.isIndex:
			b.WriteString("[" + strconv.Itoa(step.index) + "]")
		default:
			b.WriteString("." + haskellShow(step.key))
		}
	}
	return b.String()
}

// haskellShow quotes s as Haskell's show quotes a string, the form
// PostgREST's warning names keys in: printable ASCII as it is, a quote and
// a backslash escaped, the usual control characters by their letter, and
// every other character as a decimal escape (\233 for é), followed by \&
// when a digit comes next, so that the number ends where it should.
func haskellShow(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	numeric := false
	for _, r := range s {
		if numeric && '0' <= r && r <= '9' {
			b.WriteString(`\&`)
		}
		numeric = false
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case strings.ContainsRune("\a\b\f\n\r\t\v", r):
			b.WriteString(strconv.QuoteRune(r)[1:3])
		default:
			b.WriteString(`\` + strconv.Itoa(int(r)))
			numeric = true
		}
	}
	b.WriteByte('"')
	return b.String()
}
