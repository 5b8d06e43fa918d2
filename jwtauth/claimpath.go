package jwtauth

// ClaimPath is a claim named by its place in a token's claims, written as
// jwt_role_claim_key is (an RFC 9535 query such as `$.sub` or
// `$['https://example.com/tenant']`, or PostgREST 14's deprecated form):
// other settings that name a claim, such as a rate limit's key, read it
// with the same parser, so one syntax names a claim everywhere.
type ClaimPath struct {
	key roleClaimKey
	src string
}

// ParseClaimPath parses a claim path; the error says why it does not
// parse.
func ParseClaimPath(s string) (ClaimPath, error) {
	k, err := parseRoleClaimKey(s)
	if err != nil {
		return ClaimPath{}, err
	}
	return ClaimPath{key: k, src: s}, nil
}

// Lookup returns the first value the path selects in claims; found is
// false when it selects nothing.
func (p ClaimPath) Lookup(claims map[string]any) (value any, found bool) {
	if len(claims) == 0 {
		return nil, false
	}
	return p.key.lookup(claims)
}

// String is the path as it was written.
func (p ClaimPath) String() string { return p.src }
