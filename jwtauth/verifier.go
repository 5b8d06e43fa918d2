package jwtauth

import (
	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// Verifier authenticates requests with one configuration.
type Verifier struct {
	cfg Config
}

// New parses the configured keys and returns a Verifier.
func New(cfg Config) (*Verifier, error) {
	return &Verifier{cfg: cfg}, nil
}

// Authenticate turns an Authorization header value into an Identity.
func (v *Verifier) Authenticate(authorization string) (Identity, *apierr.Error) {
	if authorization == "" {
		if v.cfg.AnonRole == "" {
			return Identity{}, apierr.JWTTokenRequired()
		}
		return Identity{Role: v.cfg.AnonRole, ClaimsJSON: `{"role":"` + v.cfg.AnonRole + `"}`}, nil
	}
	return Identity{}, apierr.JWTDecode("JWT cryptographic operation failed", "")
}
