package jwtauth

import (
	"fmt"
	"strings"

	"github.com/theory/jsonpath"
)

// defaultRoleClaimKey is PostgREST v16's default jwt-role-claim-key.
const defaultRoleClaimKey = "$.role"

// roleClaimKey is a parsed jwt_role_claim_key, as PostgREST v16.2 reads
// it: an RFC 9535 JSONPath query ($.roles[0], $['https://x/role'],
// $.roles[?(@ == 'author')]) or, failing that, the deprecated syntax of
// PostgREST 14 and before (.roles[0], ."https://x/role",
// .roles[?(@ ^== "au")]; see rolepath_deprecated.go). It is parsed once in
// New, so a bad key fails at start-up.
type roleClaimKey struct {
	// path is the JSONPath query; nil when the key is deprecated.
	path       *jsonpath.Path
	deprecated deprecatedPath
}

// parseRoleClaimKey tries the JSONPath syntax first, then the deprecated
// one, as PostgREST does. When both refuse the key, the error is the
// JSONPath parser's for a key starting with "$", the deprecated parser's
// otherwise: the syntax the key was meant in.
func parseRoleClaimKey(s string) (roleClaimKey, error) {
	path, err := parseJSONPath(s)
	if err == nil {
		return roleClaimKey{path: path}, nil
	}
	d, derr := parseDeprecatedPath(s)
	if derr == nil {
		return roleClaimKey{deprecated: d}, nil
	}
	if strings.HasPrefix(s, "$") {
		return roleClaimKey{}, err
	}
	return roleClaimKey{}, derr
}

// parseJSONPath parses an RFC 9535 query and refuses the function
// extensions PostgREST's JSONPath library lacks: only search() is
// available in its filters.
func parseJSONPath(s string) (*jsonpath.Path, error) {
	path, err := jsonpath.Parse(s)
	if err != nil {
		return nil, err
	}
	for _, name := range functionNames(path.String()) {
		if name != "search" {
			return nil, fmt.Errorf("the function %s() is not available: only search() is, as in PostgREST", name)
		}
	}
	return path, nil
}

// functionNames lists the functions a query calls, from its normalized
// text (jsonpath.Path.String): there, every name and string is a
// double-quoted literal, so the only bare words are true, false, null and
// function names, which an opening parenthesis follows.
func functionNames(normalized string) []string {
	var names []string
	for i := 0; i < len(normalized); i++ {
		c := normalized[i]
		switch {
		case c == '"':
			// Skip the literal, escapes included.
			for i++; i < len(normalized) && normalized[i] != '"'; i++ {
				if normalized[i] == '\\' {
					i++
				}
			}
		case isLowerLetter(c):
			start := i
			for i+1 < len(normalized) && (isLowerLetter(normalized[i+1]) || normalized[i+1] == '_' ||
				'0' <= normalized[i+1] && normalized[i+1] <= '9') {
				i++
			}
			if i+1 < len(normalized) && normalized[i+1] == '(' {
				names = append(names, normalized[start:i+1])
			}
		}
	}
	return names
}

func isLowerLetter(c byte) bool { return 'a' <= c && c <= 'z' }

// lookup finds the role in decoded claims: the first value the query
// selects, as PostgREST takes the first of several. found is false when
// it selects nothing.
func (k roleClaimKey) lookup(claims map[string]any) (value any, found bool) {
	if k.path == nil {
		return k.deprecated.lookup(claims)
	}
	nodes := k.path.Select(claims)
	if len(nodes) == 0 {
		return nil, false
	}
	return nodes[0], true
}
