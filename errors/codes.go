package errors

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Constructors for every PGRST code. Groups: 0 connection, 1 API request,
// 2 schema cache, 3 token, X internal. Messages follow PostgREST so clients
// that match on them keep working.

// --- group 0: connection ---

// ConnectionError (PGRST000): the database cannot be reached. details is
// read by anonymous clients: it says why in general words and never names
// the user, database, host or port of db_uri, nor quotes the driver's
// error, which does; the full cause belongs in the log.
func ConnectionError(details string) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: "PGRST000",
		Message: "Database connection error. Retrying the connection.", Details: str(details)}
}

// ClientError (PGRST001): the connection broke for an internal reason.
// details, when not empty, is as general as ConnectionError's.
func ClientError(details string) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: "PGRST001",
		Message: "Database client error. Retrying the connection.", Details: str(details)}
}

// NoSchemaCache (PGRST002): the schema cache could not be loaded.
func NoSchemaCache() *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: "PGRST002",
		Message: "Could not query the database for the schema cache. Retrying."}
}

// AcquisitionTimeout (PGRST003): no pool connection within db_pool_acquisition_timeout.
func AcquisitionTimeout() *Error {
	return &Error{Status: http.StatusGatewayTimeout, Code: "PGRST003",
		Message: "Timed out acquiring connection from connection pool."}
}

// --- group 1: API request ---

// QueryParam (PGRST100): a query-string parameter does not parse.
func QueryParam(message, details string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST100", Message: message, Details: str(details)}
}

// InvalidRPCMethod (PGRST101): functions take only GET and POST.
func InvalidRPCMethod(method string) *Error {
	return &Error{Status: http.StatusMethodNotAllowed, Code: "PGRST101",
		Message: "Cannot use the " + method + " method on RPC"}
}

// InvalidBody (PGRST102): empty or malformed request body.
func InvalidBody(message string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST102", Message: message}
}

// Range errors (PGRST103) differ only in their details.
const (
	RangeNegativeLimit = "Limit should be greater than or equal to zero."
	RangeLowerGTUpper  = "The lower boundary must be lower than or equal to the upper boundary in the Range header."
)

// InvalidRange (PGRST103): limit/offset or Range header cannot be satisfied.
func InvalidRange(details string) *Error {
	return &Error{Status: http.StatusRequestedRangeNotSatisfiable, Code: "PGRST103",
		Message: "Requested range not satisfiable", Details: str(details)}
}

// RangeOutOfBounds (PGRST103): the offset lies past the last row.
func RangeOutOfBounds(offset, total int64) *Error {
	return InvalidRange(fmt.Sprintf("An offset of %d was requested, but there are only %d rows.", offset, total))
}

// InvalidFilters (PGRST105): a PUT whose filters are not exactly the primary key.
func InvalidFilters() *Error {
	return &Error{Status: http.StatusMethodNotAllowed, Code: "PGRST105",
		Message: "Filters must include all and only primary key columns with 'eq' operators"}
}

// UnacceptableSchema (PGRST106): the profile names a schema not in db_schemas.
func UnacceptableSchema(schema string, exposed []string) *Error {
	return &Error{Status: http.StatusNotAcceptable, Code: "PGRST106",
		Message: "Invalid schema: " + schema,
		Hint:    "Only the following schemas are exposed: " + strings.Join(exposed, ", ")}
}

// UnsupportedContentType (PGRST107): the request body's Content-Type is not
// one pgrest reads. The contract makes this 415.
func UnsupportedContentType(contentType string) *Error {
	return &Error{Status: http.StatusUnsupportedMediaType, Code: "PGRST107",
		Message: "None of these media types are available: " + contentType}
}

// NotAcceptable (PGRST107 with 406): no representation satisfies Accept.
func NotAcceptable(accepted []string) *Error {
	return &Error{Status: http.StatusNotAcceptable, Code: "PGRST107",
		Message: "None of these media types are available: " + strings.Join(accepted, ", ")}
}

// NotEmbedded (PGRST108): a filter names an embedded resource not in select.
func NotEmbedded(resource string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST108",
		Message: "'" + resource + "' is not an embedded resource in this request",
		Hint:    "Verify that '" + resource + "' is included in the 'select' query parameter."}
}

// NotEmbeddedAlias (PGRST108): a filter, order or limit names an aliased
// embed by its relation while url_use_legacy_target_names is false.
func NotEmbeddedAlias(resource, alias string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST108",
		Message: "'" + resource + "' is not an embedded resource in this request",
		Details: "Target names are not allowed in filters if they have an alias",
		Hint:    "Change '" + resource + "' to '" + alias + "' in filters, orders or limits."}
}

// GucHeaders (PGRST111): response.headers is not an array of one-key objects.
func GucHeaders() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "PGRST111",
		Message: "response.headers guc must be a JSON array composed of objects with a single key and a string value"}
}

// GucStatus (PGRST112): response.status is not a valid status code.
func GucStatus() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "PGRST112",
		Message: "response.status guc must be a valid status code"}
}

// PutLimitNotAllowed (PGRST114): limit or offset on a PUT.
func PutLimitNotAllowed() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST114",
		Message: "limit/offset querystring parameters are not allowed for PUT"}
}

// PutMatchingPK (PGRST115): body and URL disagree on the primary key.
func PutMatchingPK() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST115",
		Message: "Payload values do not match URL in primary key column(s)"}
}

// Singularity (PGRST116): one object was requested, rows rows came back.
func Singularity(rows int64) *Error {
	return &Error{Status: http.StatusNotAcceptable, Code: "PGRST116",
		Message: "Cannot coerce the result to a single JSON object",
		Details: fmt.Sprintf("The result contains %d rows", rows)}
}

// UnsupportedMethod (PGRST117): an HTTP verb pgrest does not serve.
func UnsupportedMethod(method string) *Error {
	return &Error{Status: http.StatusMethodNotAllowed, Code: "PGRST117",
		Message: "Unsupported HTTP method: " + method}
}

// RelatedOrderNotToOne (PGRST118): ordering by a to-many embedded resource.
func RelatedOrderNotToOne(origin, target string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST118",
		Message: "A related order on '" + target + "' is not possible",
		Details: "'" + origin + "' and '" + target + "' do not form a many-to-one or one-to-one relationship"}
}

// The hints of PGRST121, PostgREST's words. pgrest is more lenient than the
// DETAIL hint says: a DETAIL without headers still sets the status.
const (
	raiseMessageHint = "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'."
	raiseDetailHint  = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'."
)

// RaiseParse (PGRST121): the JSON of a RAISE SQLSTATE 'PGRST' cannot be used.
func RaiseParse(details, hint string) *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "PGRST121",
		Message: `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`,
		Details: str(details), Hint: str(hint)}
}

// InvalidPreferences (PGRST122): Prefer: handling=strict with bad preferences.
func InvalidPreferences(prefs []string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST122",
		Message: "Invalid preferences given with handling=strict",
		Details: "Invalid preferences: " + strings.Join(prefs, ", ")}
}

// AggregatesNotAllowed (PGRST123): aggregates used with db_aggregates_enabled off.
func AggregatesNotAllowed() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST123",
		Message: "Use of aggregate functions is not allowed"}
}

// MaxAffectedViolation (PGRST124): a write affected more rows than max-affected.
func MaxAffectedViolation(rows int64) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST124",
		Message: "Query result exceeds max-affected preference constraint",
		Details: fmt.Sprintf("The query affects %d rows", rows)}
}

// InvalidResourcePath (PGRST125): the URL path names no resource.
func InvalidResourcePath() *Error {
	return &Error{Status: http.StatusNotFound, Code: "PGRST125",
		Message: "Invalid path specified in request URL"}
}

// OpenAPIDisabled (PGRST126): the API root was requested with openapi_mode disabled.
func OpenAPIDisabled() *Error {
	return &Error{Status: http.StatusNotFound, Code: "PGRST126",
		Message: "Root endpoint metadata is disabled"}
}

// NotImplemented (PGRST127): a recognised feature pgrest does not provide.
func NotImplemented(details string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST127",
		Message: "Feature not implemented", Details: str(details)}
}

// MaxAffectedRPCViolation (PGRST128): max-affected on a function that does
// not return a set.
func MaxAffectedRPCViolation() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST128",
		Message: "Function must return SETOF or TABLE when max-affected preference is used with handling=strict"}
}

// PayloadTooLarge (PGRST190): the request body is over max_body_size.
// PostgREST has no code for it (it leaves body limits to the proxy in front
// of it); pgrest's own request codes start at 190, well clear of the
// numbers PostgREST hands out one by one from 100.
func PayloadTooLarge(limit int64) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: "PGRST190",
		Message: "Request body too large",
		Details: fmt.Sprintf("The request body is larger than the limit of %d bytes.", limit),
		Hint:    "Send a smaller body, or split the rows over several requests."}
}

// QueryTooComplex (PGRST191): the query string asks for more work than
// pgrest takes on in one request (SECURITY.md, Limits): embeds nested too
// deep or too many, too many select items or filters, and/or nested too
// deep. details says which limit.
func QueryTooComplex(details string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST191",
		Message: "The query string is over a limit of pgrest",
		Details: str(details),
		Hint:    "Ask for less in one request, or split it over several."}
}

// PlanAnalyzeNotAllowed (PGRST192): an execution plan with options=analyze
// asked for by a role not in db_plan_analyze_roles. An analyzed plan runs
// the statement and counts the rows row-level security removes.
func PlanAnalyzeNotAllowed(role string) *Error {
	return &Error{Status: http.StatusForbidden, Code: "PGRST192",
		Message: "The plan option analyze is not allowed",
		Details: `The role "` + role + `" is not in db_plan_analyze_roles.`,
		Hint:    "Ask for the plan without options=analyze."}
}

// RateLimited (PGRST193): a rate limit of the configuration refused the
// request before it reached the database. PostgREST has none (it leaves
// rate limits to a proxy, which cannot tell users apart by their verified
// token). Retry-After says, in whole seconds rounded up, when the limit
// lets a request of the same key through again.
func RateLimited(limit string, retryAfterSeconds int64) *Error {
	return &Error{Status: http.StatusTooManyRequests, Code: "PGRST193",
		Message: "Too many requests",
		Details: `The rate limit "` + limit + `" allows no more requests now.`,
		Hint:    "Send it again after the seconds Retry-After says.",
		Headers: http.Header{"Retry-After": {strconv.FormatInt(retryAfterSeconds, 10)}}}
}

// RateLimitUnavailable (PGRST194): the store the rate limits are counted
// in (Redis) cannot be reached and rate_limit_redis_failure is closed, so
// requests are refused rather than let through uncounted. It is a 503, so
// it carries Retry-After as every 503 does.
func RateLimitUnavailable() *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: "PGRST194",
		Message: "Rate limits cannot be checked. Retrying the connection."}
}

// CodeQueryCostExceeded is QueryCostExceeded's code, which the metrics
// count by role.
const CodeQueryCostExceeded = "PGRST195"

// QueryCostExceeded (PGRST195): the planner's estimate of the request's
// main statement is over the role's db_max_cost. The check runs EXPLAIN
// before the statement, so nothing of the statement ran. 195, not 193 or
// 194: those are the rate limit's.
func QueryCostExceeded(cost float64, limit int64) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeQueryCostExceeded,
		Message: "The query's estimated cost exceeds the limit",
		Details: fmt.Sprintf("The planner estimates a cost of %s; the limit is %d.",
			strconv.FormatFloat(cost, 'f', 2, 64), limit),
		Hint: "Filter on an indexed column, ask for fewer rows or embeds, or split the request."}
}

// --- group 2: schema cache ---

// NoRelationship (PGRST200): no foreign key joins parent and child.
func NoRelationship(parent, child, embedHint, schema, hint string) *Error {
	using := ""
	if embedHint != "" {
		using = "' using the hint '" + embedHint
	}
	return &Error{Status: http.StatusBadRequest, Code: "PGRST200",
		Message: "Could not find a relationship between '" + parent + "' and '" + child + "' in the schema cache",
		Details: "Searched for a foreign key relationship between '" + parent + "' and '" + child + using +
			"' in the schema '" + schema + "', but no matches were found.",
		Hint: str(hint)}
}

// AmbiguousRelationship (PGRST201): several relationships fit an embed.
// candidates are the JSON objects PostgREST lists; hints the disambiguated
// names ("clients!fk_name").
func AmbiguousRelationship(parent, child string, candidates []map[string]string, hints []string) *Error {
	quoted := make([]string, len(hints))
	for i, h := range hints {
		quoted[i] = "'" + h + "'"
	}
	return &Error{Status: http.StatusMultipleChoices, Code: "PGRST201",
		Message: "Could not embed because more than one relationship was found for '" + parent + "' and '" + child + "'",
		Details: candidates,
		Hint: "Try changing '" + child + "' to one of the following: " + strings.Join(quoted, ", ") +
			". Find the desired relationship in the 'details' key."}
}

// NoFunction (PGRST202): no function of that name takes these arguments.
// searched describes the parameters looked for, as PostgREST words it
// (" with parameters a, b or with a single unnamed json/jsonb parameter").
// hint is "" (null) when no function or parameter list is close enough to
// suggest, as in PostgREST.
func NoFunction(schema, name string, argNames []string, searched, hint string) *Error {
	fn := schema + "." + name
	sig := " without parameters"
	if len(argNames) > 0 {
		sig = "(" + strings.Join(argNames, ", ") + ")"
	}
	return &Error{Status: http.StatusNotFound, Code: "PGRST202",
		Message: "Could not find the function " + fn + sig + " in the schema cache",
		Details: "Searched for the function " + fn + searched + ", but no matches were found in the schema cache.",
		Hint:    str(hint)}
}

// AmbiguousFunction (PGRST203): overloads cannot be told apart. signatures
// are rendered as "api.f(a => integer)".
func AmbiguousFunction(signatures []string) *Error {
	return &Error{Status: http.StatusMultipleChoices, Code: "PGRST203",
		Message: "Could not choose the best candidate function between: " + strings.Join(signatures, ", "),
		Hint:    "Try renaming the parameters or the function itself in the database so function overloading can be resolved"}
}

// ColumnNotFound (PGRST204): a column named by columns= or a body key is unknown.
func ColumnNotFound(relation, column string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PGRST204",
		Message: "Could not find the '" + column + "' column of '" + relation + "' in the schema cache"}
}

// TableNotFound (PGRST205): the path names no table or view of the schema.
// closest, when not empty, is suggested in the hint.
func TableNotFound(schema, table, closest string) *Error {
	e := &Error{Status: http.StatusNotFound, Code: "PGRST205",
		Message: "Could not find the table '" + schema + "." + table + "' in the schema cache"}
	if closest != "" {
		e.Hint = "Perhaps you meant the table '" + schema + "." + closest + "'"
	}
	return e
}

// --- group 3: token ---

// JWTSecretMissing (PGRST300): a token arrived but no key is configured.
func JWTSecretMissing() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "PGRST300",
		Message: "Server lacks JWT secret"}
}

// JWTDecode (PGRST301): the token cannot be decoded or its signature fails.
func JWTDecode(message, details string) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: "PGRST301",
		Message: message, Details: str(details), Headers: invalidToken(message)}
}

// JWTTokenRequired (PGRST302): no token and no anonymous role.
func JWTTokenRequired() *Error {
	return &Error{Status: http.StatusUnauthorized, Code: "PGRST302",
		Message: "Anonymous access is disabled",
		Headers: http.Header{"Www-Authenticate": {"Bearer"}}}
}

// JWTClaims (PGRST303): the claims fail validation (expired, audience, ...).
func JWTClaims(message string) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: "PGRST303",
		Message: message, Headers: invalidToken(message)}
}

// invalidToken is the RFC 6750 challenge PostgREST sends with token errors.
func invalidToken(description string) http.Header {
	return http.Header{"Www-Authenticate": {
		`Bearer error="invalid_token", error_description=` + quoteHeader(description)}}
}

// headerQuoter escapes a quoted-string's content. It is built once: token
// errors are written for every request carrying a bad token.
var headerQuoter = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r", " ", "\n", " ")

// quoteHeader renders s as an HTTP quoted-string.
func quoteHeader(s string) string {
	return `"` + headerQuoter.Replace(s) + `"`
}

// --- group X: internal ---

// Internal (PGRSTX00): a failure inside the database client library.
func Internal(details string) *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "PGRSTX00",
		Message: "Database client error", Details: str(details)}
}
