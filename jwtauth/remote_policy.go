package jwtauth

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// What a key set fetched from a URL may be: anything on the way to a
// plain http:// URL could swap the keys, and a symmetric key in a
// published set signs tokens for whoever reads it. Either would let anyone
// sign a token for any role, so neither is used.

// maxRedirects is how many redirects a fetch follows, as net/http's
// default policy.
const maxRedirects = 10

// httpsOnly returns a copy of client (a default client when nil) that
// follows a redirect only to an https:// URL. The redirect to http://
// fails the fetch, so the last good keys stay in use. Redirects within
// https are followed: providers move their sets behind CDNs and to new
// paths, and the certificate of the new host is checked as the first one
// was.
func httpsOnly(client *http.Client) *http.Client {
	c := http.Client{Timeout: fetchTimeout}
	if client != nil {
		c = *client
	}
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != "https" {
			return fmt.Errorf("refusing the redirect to %s: a JWKS is only fetched over https://", req.URL.Redacted())
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
	return &c
}

// errOnlySymmetric is the fetch error of a set whose only usable keys are
// symmetric.
var errOnlySymmetric = errors.New("no usable key: the set holds only symmetric (kty oct) keys, " +
	"which are not accepted from a URL: anyone who reads the set could sign tokens with them")

// publicKeys drops the symmetric keys of a fetched set, warning when the
// ones dropped differ from the last fetch's. A set left without keys is an
// error, so the last good keys stay in use. Called with fetchMu held.
func (r *RemoteKeys) publicKeys(keys []*verifyKey) ([]*verifyKey, error) {
	public := make([]*verifyKey, 0, len(keys))
	var ignored []string
	for _, k := range keys {
		if k.family == familyHMAC {
			ignored = append(ignored, fmt.Sprintf("%q", k.kid))
			continue
		}
		public = append(public, k)
	}
	if desc := strings.Join(ignored, ", "); desc != r.lastIgnored {
		r.lastIgnored = desc
		if desc != "" {
			r.onWarning(fmt.Errorf("the JWKS %s holds %d symmetric (kty oct) keys, kids %s: they are ignored, "+
				"since anyone who reads the set could sign tokens with them", r.url, len(ignored), desc))
		}
	}
	if len(public) == 0 {
		return nil, errOnlySymmetric
	}
	return public, nil
}
