package jwtauth

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// defaultRoleClaimKey is PostgREST's default db-role-claim-key.
const defaultRoleClaimKey = ".role"

// rolePath is a parsed jwt_role_claim_key: the steps from the claims object
// to the role. It is parsed once in New so a bad path fails at start-up and
// the hot path only walks maps.
type rolePath []pathStep

// pathStep is one step: a member name, or an array index when isIndex.
type pathStep struct {
	key     string
	index   int
	isIndex bool
}

// parseRolePath accepts both syntaxes users bring:
//
//   - PostgREST's: .role, .app_metadata.role, .roles[0],
//     ."https://example.com/role" (double quotes, no escapes);
//   - RFC 9535 JSONPath: $.role, $.app_metadata.role, $.roles[0],
//     $['https://example.com/role'], $["..."] (with JSON-style escapes).
//
// Either form may use any step of the other after its start; a negative
// index counts from the end, as in RFC 9535. Filter expressions are not
// supported.
func parseRolePath(s string) (rolePath, error) {
	rest, rfc := strings.CutPrefix(s, "$")
	if !rfc && !strings.HasPrefix(rest, ".") {
		return nil, errors.New(`a path starts with "." or "$"`)
	}
	var p rolePath
	for rest != "" {
		var step pathStep
		var err error
		switch rest[0] {
		case '.':
			step, rest, err = parseMember(rest[1:])
		case '[':
			step, rest, err = parseBracket(rest[1:])
		default:
			err = fmt.Errorf("unexpected %q", rest)
		}
		if err != nil {
			return nil, err
		}
		p = append(p, step)
	}
	if len(p) == 0 {
		return nil, errors.New("the path names no claim")
	}
	return p, nil
}

// parseMember reads what follows a ".": a name or a double-quoted key.
func parseMember(s string) (pathStep, string, error) {
	if strings.HasPrefix(s, `"`) {
		// PostgREST quotes take everything up to the next double quote.
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return pathStep{}, "", errors.New("unterminated quoted key")
		}
		return pathStep{key: s[1 : 1+end]}, s[2+end:], nil
	}
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !isNameRune(r) {
			break
		}
		n += size
	}
	if n == 0 {
		return pathStep{}, "", fmt.Errorf("expected a claim name at %q", s)
	}
	return pathStep{key: s[:n]}, s[n:], nil
}

// isNameRune is PostgREST's unquoted key alphabet (letters, digits, _$@),
// which also covers RFC 9535's member-name-shorthand.
func isNameRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$' || r == '@'
}

// parseBracket reads what follows a "[": an index or a quoted key, then "]".
func parseBracket(s string) (pathStep, string, error) {
	var step pathStep
	var rest string
	if strings.HasPrefix(s, `'`) || strings.HasPrefix(s, `"`) {
		key, r, err := parseQuoted(s)
		if err != nil {
			return pathStep{}, "", err
		}
		step, rest = pathStep{key: key}, r
	} else {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return pathStep{}, "", errors.New(`missing "]"`)
		}
		i, err := strconv.Atoi(s[:end])
		if err != nil {
			return pathStep{}, "", fmt.Errorf("array index %q is not an integer", s[:end])
		}
		step, rest = pathStep{index: i, isIndex: true}, s[end:]
	}
	rest, ok := strings.CutPrefix(rest, "]")
	if !ok {
		return pathStep{}, "", errors.New(`missing "]"`)
	}
	return step, rest, nil
}

// parseQuoted reads an RFC 9535 string literal in single or double quotes,
// returning its value and what follows the closing quote.
func parseQuoted(s string) (string, string, error) {
	quote := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == quote:
			return b.String(), s[i+1:], nil
		case c != '\\':
			b.WriteByte(c)
		case i+1 >= len(s):
			return "", "", errors.New("unterminated quoted key")
		default:
			i++
			switch e := s[i]; e {
			case '\\', '/', '\'', '"':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, n, err := parseUnicodeEscape(s[i+1:])
				if err != nil {
					return "", "", err
				}
				b.WriteRune(r)
				i += n
			default:
				return "", "", fmt.Errorf(`unknown escape "\%c"`, e)
			}
		}
	}
	return "", "", errors.New("unterminated quoted key")
}

// parseUnicodeEscape reads the XXXX of \uXXXX (and a following \uXXXX low
// surrogate), returning the rune and the bytes consumed.
func parseUnicodeEscape(s string) (rune, int, error) {
	hex4 := func(s string) (rune, bool) {
		if len(s) < 4 {
			return 0, false
		}
		v, err := strconv.ParseUint(s[:4], 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex4(s)
	if !ok {
		return 0, 0, errors.New(`bad "\u" escape`)
	}
	if r >= 0xD800 && r < 0xDC00 && strings.HasPrefix(s[4:], `\u`) {
		if lo, ok := hex4(s[6:]); ok && lo >= 0xDC00 && lo < 0xE000 {
			return (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000, 10, nil
		}
	}
	return r, 4, nil
}

// lookup walks the path through decoded claims. found is false when a step
// is missing (no such member, index out of range, or the value is not an
// object or array as the step needs).
func (p rolePath) lookup(claims map[string]any) (value any, found bool) {
	var cur any = claims
	for _, step := range p {
		if step.isIndex {
			arr, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			i := step.index
			if i < 0 {
				i += len(arr)
			}
			if i < 0 || i >= len(arr) {
				return nil, false
			}
			cur = arr[i]
			continue
		}
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[step.key]; !ok {
			return nil, false
		}
	}
	return cur, true
}
