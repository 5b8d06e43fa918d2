package executor

import (
	"fmt"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// maxIdentifierBytes is NAMEDATALEN-1: PostgreSQL truncates a longer role
// name given to set_config('role', ...) to this many bytes, backing off to
// a character boundary, before it looks the role up.
const maxIdentifierBytes = 63

// roleNone is the value of the role setting that resets the role to the
// session user, whatever roles exist. set_config compares it exactly:
// "NONE" or "None" name roles of those names.
const roleNone = "none"

// AuthenticatorOf is the user the pool's connections log in as, which is
// the session user set_config('role', 'none') returns to.
func AuthenticatorOf(pool *pgxpool.Pool) string {
	return pool.Config().ConnConfig.User
}

// AuthenticatorOfURI is the user db_uri logs in as, with the defaults pgx
// fills in when the URI names none (PGUSER, then the operating system
// user).
func AuthenticatorOfURI(uri string) (string, error) {
	cfg, err := pgconn.ParseConfig(uri)
	if err != nil {
		return "", fmt.Errorf("parsing db_uri: %w", err)
	}
	return cfg.User, nil
}

// RunsAsAuthenticator reports whether set_config('role', role, true), run
// by authenticator, would leave the request running as the authenticator
// itself: role is "none", or names the authenticator once PostgreSQL has
// truncated it. The authenticator holds every role it may switch into and
// is meant to do nothing in its own name, so such a role must never reach
// the database.
func RunsAsAuthenticator(role, authenticator string) bool {
	return role == roleNone || (authenticator != "" && truncateIdentifier(role) == authenticator)
}

// truncateIdentifier shortens name as PostgreSQL does a name-typed
// setting (truncate_identifier with pg_mbcliplen, UTF-8 server encoding).
func truncateIdentifier(name string) string {
	if len(name) <= maxIdentifierBytes {
		return name
	}
	cut := maxIdentifierBytes
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut]
}

// refuseAuthenticatorRole answers a request whose token names a role that
// would run as the authenticator before any database work, with what
// PostgreSQL answers for a role the authenticator may not switch into:
// 42501, 403 (a token was sent). It checks both the user of db_uri and
// the session user the server reported, which differ behind a pooler that
// logs in as another user. A request without a role claim runs as
// db_anon_role, which the administrator chose: PostgREST lets that be the
// authenticator (its own test setup does), and so does pgrest, with a
// warning at startup (see caddymodule's liveConfig.build).
func (e *Executor) refuseAuthenticatorRole(id jwtauth.Identity) *apierr.Error {
	if !id.RoleClaimed && !id.Authenticated {
		return nil
	}
	refused := RunsAsAuthenticator(id.Role, e.authenticator)
	if su, ok := e.source.SessionUser(); !refused && ok {
		refused = RunsAsAuthenticator(id.Role, su)
	}
	if !refused {
		return nil
	}
	e.logger.Warn("refused a role that would run as the authenticator; check what the token issuer puts in the role claim",
		zap.String("role", id.Role))
	return apierr.FromDatabase(&pgconn.PgError{
		Severity: "ERROR",
		Code:     "42501",
		Message:  `permission denied to set role "` + id.Role + `"`,
	}, true)
}
