package caddymodule

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// recordOutcome counts an answered request in the metrics and tells
// Caddy's access log who made it and what it did:
//
//   - user_id ({http.auth.user.id}, as Caddy's own authentication handler
//     sets it) is the token's sub claim when it has one, else the role
//     the request ran as;
//   - the extra fields pgrest_role, pgrest_action and pgrest_schema, and
//     on errors pgrest_code, plus pgrest_sqlstate when PostgreSQL raised
//     the error.
func recordOutcome(r *http.Request, id jwtauth.Identity, o executor.Outcome) {
	recordLimitedOutcome(r, id, o, "")
}

// recordLimitedOutcome is recordOutcome of a request a rate limit
// refused: the access log's pgrest_rate_limit names the limit.
func recordLimitedOutcome(r *http.Request, id jwtauth.Identity, o executor.Outcome, limit string) {
	countRequest(o)
	if o.Code == apierr.CodeQueryCostExceeded {
		metrics.costGuardRefused.WithLabelValues(id.Role).Inc()
	}
	ctx := r.Context()
	if repl, ok := ctx.Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok && id.Role != "" {
		// The token's own interface value: no allocation per request.
		repl.Set("http.auth.user.id", id.UserValue())
	}
	if !accessLogged(r) {
		return
	}
	extra, ok := ctx.Value(caddyhttp.ExtraLogFieldsCtxKey).(*caddyhttp.ExtraLogFields)
	if !ok {
		return
	}
	// One field that writes all of them in place: each Add clears a
	// sync.Map and grows a slice, so one Add costs a third of what three
	// to five did. Encoders (json, console, filter) see the same keys
	// in the same order.
	extra.Add(zap.Inline(&outcomeFields{role: id.Role, outcome: o, limit: limit}))
}

// outcomeFields are pgrest's extra access log fields.
type outcomeFields struct {
	role    string
	outcome executor.Outcome
	// limit is the rate limit that refused the request, if one did.
	limit string
}

func (f *outcomeFields) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	if f.role != "" {
		enc.AddString("pgrest_role", f.role)
	}
	enc.AddString("pgrest_action", f.outcome.Action)
	if f.outcome.Schema != "" {
		enc.AddString("pgrest_schema", f.outcome.Schema)
	}
	if f.outcome.Code != "" {
		enc.AddString("pgrest_code", f.outcome.Code)
		if f.outcome.FromDatabase {
			enc.AddString("pgrest_sqlstate", f.outcome.Code)
		}
	}
	if f.limit != "" {
		enc.AddString("pgrest_rate_limit", f.limit)
	}
	return nil
}

// accessLogged says whether the server that took r writes access logs at
// all. Without them the extra fields would be read by nobody, and each
// ExtraLogFields.Add costs allocations (it clears a sync.Map as well as
// appending): on a one-row read they were a sixth of what a request
// allocated.
func accessLogged(r *http.Request) bool {
	srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	return !ok || srv.Logs != nil
}
