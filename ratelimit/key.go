package ratelimit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// keyPart is one part of a limit's key.
type keyPart struct {
	// kind is "address", "role" or "claim".
	kind  string
	claim jwtauth.ClaimPath
}

func parseKey(parts []string) ([]keyPart, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("one or more of address, role, claim:<path> is required")
	}
	out := make([]keyPart, 0, len(parts))
	for i, p := range parts {
		if slices.Contains(parts[:i], p) {
			return nil, fmt.Errorf("%q is listed twice", p)
		}
		switch path, isClaim := strings.CutPrefix(p, "claim:"); {
		case p == "address" || p == "role":
			out = append(out, keyPart{kind: p})
		case isClaim:
			c, err := jwtauth.ParseClaimPath(path)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", p, err)
			}
			out = append(out, keyPart{kind: "claim", claim: c})
		default:
			return nil, fmt.Errorf("%q is none of address, role, claim:<path>", p)
		}
	}
	return out, nil
}

// Request is what a limit needs to know of a request.
type Request struct {
	// Address is the client's address.
	Address string
	// Role is the role the request runs as, Claims its token's claims.
	Role   string
	Claims map[string]any
	// Kind is read, write or rpc; Function the function an rpc calls.
	Kind     string
	Function string
}

// keyOf is the key r is counted under for l: the limit's name and each
// part's value, NUL-separated (no part holds a NUL that could make two
// keys one: names and addresses cannot, and a claim is JSON-encoded when
// it is not a plain string). A claim the token lacks counts as empty:
// every request without it shares one key, so leaving the claim out is
// no way around the limit.
func (l *Limit) keyOf(r *Request) string {
	var b strings.Builder
	b.WriteString(l.name)
	for _, p := range l.key {
		b.WriteByte(0)
		switch p.kind {
		case "address":
			b.WriteString(r.Address)
		case "role":
			b.WriteString(r.Role)
		default:
			v, ok := p.claim.Lookup(r.Claims)
			if !ok {
				continue
			}
			if s, isString := v.(string); isString && !strings.ContainsRune(s, 0) {
				b.WriteString(s)
				continue
			}
			j, _ := json.Marshal(v)
			b.Write(j)
		}
	}
	return b.String()
}
