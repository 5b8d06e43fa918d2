package executor

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// The settings statement switches the role and exposes the request to SQL
// through transaction-local settings. It also empties response.headers and
// response.status: a function may set them at session level
// (set_config(..., false)), and without this every later request on the
// connection, whoever sends it, would answer with that status and those
// headers. Its text depends only on how many variable settings (app
// settings, the role's and the function's settings, legacy per-claim
// settings) the request has, so it is prepared once per connection for
// each count; their names and values travel as arguments.
//
// A variable setting is one more set_config($n, $n+1, true) in the same
// select: PostgreSQL evaluates the select list in order, so a variable
// setting still comes after the fixed ones, as it did when they were read
// from a JSON object by a json_each_text subquery, which cost PostgreSQL
// nearly as much as the rest of the statement even when the object was
// empty.
const (
	settingsSQL = `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true), ` +
		`set_config('request.method', $3, true), set_config('request.path', $4, true), ` +
		`set_config('request.headers', $5, true), set_config('request.cookies', $6, true), ` +
		`set_config('search_path', $7, true), ` +
		`set_config('response.headers', '', true), set_config('response.status', '', true)`
	// Before PostgreSQL 14 claims are one setting per claim, and
	// request.jwt.claims is not set at all.
	legacySettingsSQL = `select set_config('role', $1, true), ` +
		`set_config('request.method', $2, true), set_config('request.path', $3, true), ` +
		`set_config('request.headers', $4, true), set_config('request.cookies', $5, true), ` +
		`set_config('search_path', $6, true), ` +
		`set_config('response.headers', '', true), set_config('response.status', '', true)`
)

// maxSettingArgs bounds the variable settings sent as arguments of their
// own set_config calls. Past it (a legacy token with many claims) they go
// as one JSON object instead, so that tokens of ever more claims do not
// each prepare a statement of their own.
const maxSettingArgs = 32

// settingsTexts are the settings statements for 0 to maxSettingArgs
// variable settings, then the one reading a JSON object; built once.
var settingsTexts, legacySettingsTexts = settingsStatementTexts(sqltext.Const(settingsSQL), 7),
	settingsStatementTexts(sqltext.Const(legacySettingsSQL), 6)

func settingsStatementTexts(base sqltext.SQL, fixed int) []sqltext.SQL {
	texts := make([]sqltext.SQL, 0, maxSettingArgs+2)
	for n := range maxSettingArgs + 1 {
		var b sqltext.Builder
		b.Write(base)
		for i := range n {
			k := fixed + 1 + 2*i
			b.Write(sqltext.Fmt(", set_config(%s, %s, true)", sqltext.Param(k), sqltext.Param(k+1)))
		}
		texts = append(texts, b.SQL())
	}
	return append(texts, sqltext.Concat(base,
		sqltext.Fmt(", (select count(set_config(s.key, s.value, true)) from json_each_text(%s::json) s)", sqltext.Param(fixed+1))))
}

// settingsFixedArgs is how many arguments the settings statement has
// besides the variable settings.
const settingsFixedArgs = 7

// settingsStatement builds the settings statement for one request.
// roleSettings are those of the request's role (ALTER ROLE ... SET);
// extra are settings of this request only (a function's SET clauses),
// which win over the role's, as they would in PostgreSQL.
func (e *Executor) settingsStatement(r *http.Request, id jwtauth.Identity, schemaName string, legacy bool,
	roleSettings, extra []schemacache.Setting) sqlgen.Statement {
	return e.settingsStatementIn(nil, r, id, schemaName, legacy, roleSettings, extra)
}

// settingsStatementIn is settingsStatement with its arguments appended to
// room when they fit in its capacity.
func (e *Executor) settingsStatementIn(room [][]byte, r *http.Request, id jwtauth.Identity, schemaName string, legacy bool,
	roleSettings, extra []schemacache.Setting) sqlgen.Statement {
	if len(roleSettings) > 0 {
		extra = slices.Concat(roleSettings, extra)
	}
	variable := e.appSettingPairs
	if legacy || len(extra) > 0 {
		var claims map[string]string
		if legacy {
			claims = legacyClaims(id)
		}
		variable = variableSettings(e.cfg.AppSettings, extra, claims)
	}
	texts := settingsTexts
	args := room[:0]
	if n := settingsFixedArgs + 2*min(len(variable), maxSettingArgs+1); n > cap(args) {
		args = make([][]byte, 0, n)
	}
	args = append(args, id.RoleBytes())
	if legacy {
		texts = legacySettingsTexts
	} else {
		args = append(args, id.ClaimsJSONBytes())
	}
	path, headers := pathAndHeaders(r)
	args = append(args, methodBytes(r.Method), path, headers, cookiesJSON(r), e.searchPaths[schemaName])
	if len(variable) > maxSettingArgs {
		return sqlgen.Statement{SQL: texts[maxSettingArgs+1], Args: append(args, settingsJSON(variable))}
	}
	for _, s := range variable {
		args = append(args, []byte(s.Name), []byte(s.Value))
	}
	return sqlgen.Statement{SQL: texts[len(variable)], Args: args}
}

// variableSettings are the settings set after the fixed ones: app
// settings, then extra ones (which win), then each claim as
// request.jwt.claim.<name>; one per name, in name order. Without extra
// settings and claims they are the same for every request, and the
// executor works them out once.
func variableSettings(app, extra []schemacache.Setting, claims map[string]string) []schemacache.Setting {
	if len(app)+len(extra)+len(claims) == 0 {
		return nil
	}
	m := make(map[string]string, len(app)+len(extra)+len(claims))
	for _, s := range app {
		m[s.Name] = s.Value
	}
	for _, s := range extra {
		m[s.Name] = s.Value
	}
	for k, v := range claims {
		m["request.jwt.claim."+k] = v
	}
	out := make([]schemacache.Setting, 0, len(m))
	for k, v := range m {
		out = append(out, schemacache.Setting{Name: k, Value: v})
	}
	slices.SortFunc(out, func(a, b schemacache.Setting) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// settingsJSON renders settings as the JSON object the settings statement
// reads when there are more than maxSettingArgs.
func settingsJSON(settings []schemacache.Setting) []byte {
	m := make(map[string]string, len(settings))
	for _, s := range settings {
		m[s.Name] = s.Value
	}
	b, _ := json.Marshal(m)
	return b
}

// searchPaths renders, for each exposed schema, the search_path of its
// requests: the schema followed by db_extra_search_path. The path is a
// bind argument's value, not SQL text, but set_config parses it as a
// list of names, so each is quoted by the one quoting function.
func searchPaths(schemas, extra []string) map[string][]byte {
	paths := make(map[string][]byte, len(schemas))
	for _, s := range schemas {
		parts := make([]string, 0, 1+len(extra))
		parts = append(parts, sqltext.Ident(s).String())
		for _, x := range extra {
			parts = append(parts, sqltext.Ident(x).String())
		}
		paths[s] = []byte(strings.Join(parts, ", "))
	}
	return paths
}

// pathAndHeaders are request.path and request.headers, in one buffer:
// one allocation for the two.
func pathAndHeaders(r *http.Request) (path, headers []byte) {
	buf := make([]byte, 0, len(r.URL.Path)+headersJSONSize(r))
	buf = append(buf, r.URL.Path...)
	n := len(buf)
	return buf[:n:n], appendHeadersJSON(buf[n:], r)
}

// headersJSON is request.headers: lower-case names, repeated headers
// joined with ", ". Cookies are left to request.cookies, as in PostgREST.
func headersJSON(r *http.Request) []byte {
	return appendHeadersJSON(make([]byte, 0, headersJSONSize(r)), r)
}

// appendHeadersJSON appends request.headers to b.
func appendHeadersJSON(b []byte, r *http.Request) []byte {
	// Written by hand rather than through a map and json.Marshal: this
	// runs on every request, and canonical header keys are unique, so no
	// map is needed to merge them.
	b = append(b, '{')
	first := true
	add := func(name, value string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, name)
		b = append(b, ':')
		b = appendJSONString(b, value)
	}
	for k, vs := range r.Header {
		if plainASCII(k) {
			// The common case, written lower-cased without a string of
			// its own. For ASCII, EqualFold is what ToLower compares.
			if strings.EqualFold(k, "cookie") || strings.EqualFold(k, "host") {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, '"')
			for i := 0; i < len(k); i++ {
				c := k[i]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				b = append(b, c)
			}
			b = append(b, '"', ':')
			b = appendJSONString(b, strings.Join(vs, ", "))
			continue
		}
		name := strings.ToLower(k)
		if name == "cookie" || name == "host" {
			continue
		}
		add(name, strings.Join(vs, ", "))
	}
	if r.Host != "" {
		add("host", r.Host)
	}
	return append(b, '}')
}

// headersJSONSize is the length of request.headers when nothing needs
// escaping, so that the common case allocates once: a bearer token alone
// fills most of a small buffer.
func headersJSONSize(r *http.Request) int {
	n := len(`{"host":""}`) + len(r.Host)
	for k, vs := range r.Header {
		n += len(`"":"",`) + len(k)
		for i, v := range vs {
			if i > 0 {
				n += len(", ")
			}
			n += len(v)
		}
	}
	return n
}

// plainASCII says whether s is ASCII that a JSON string holds as it is:
// no control character, quote or backslash.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			// Rare in headers: let the encoder handle escapes and UTF-8.
			enc, _ := json.Marshal(s)
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// The arguments most requests send, made once. pgx only reads a
// statement's arguments (it copies them into the message it sends), so
// requests share them; clipped, an append to one copies it instead of
// writing where another request reads.
var (
	noCookies   = slices.Clip([]byte("{}"))
	methodsSent = map[string][]byte{}
)

func init() {
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPatch,
		http.MethodPut, http.MethodDelete, http.MethodOptions} {
		methodsSent[m] = slices.Clip([]byte(m))
	}
}

// methodBytes is request.method's argument.
func methodBytes(method string) []byte {
	if b, ok := methodsSent[method]; ok {
		return b
	}
	return []byte(method)
}

// cookiesJSON is request.cookies: cookie name to value.
func cookiesJSON(r *http.Request) []byte {
	if len(r.Header["Cookie"]) == 0 {
		return noCookies // most API requests carry none
	}
	cookies := r.Cookies()
	m := make(map[string]string, len(cookies))
	for _, c := range cookies {
		m[c.Name] = c.Value
	}
	b, _ := json.Marshal(m)
	return b
}

// legacyClaims renders each claim as the text of its own setting: strings
// as they are, anything else as JSON. The resolved role is always there.
func legacyClaims(id jwtauth.Identity) map[string]string {
	out := make(map[string]string, len(id.Claims)+1)
	for k, v := range id.Claims {
		if s, ok := v.(string); ok {
			out[k] = s
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		out[k] = string(b)
	}
	out["role"] = id.Role
	return out
}
