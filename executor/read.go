package executor

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// read answers GET and HEAD on a table or view, in a read-only transaction.
func (e *Executor) read(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity,
	run mainRun) (*output, error) {
	rel, q, aerr := relationQuery(req, cache)
	if aerr != nil {
		return nil, aerr
	}
	p, rep, aerr := e.planRead(r, req, cache, rel, q)
	if aerr != nil {
		return nil, aerr
	}
	opts := e.readOptions(req, rep)
	// The rows stream (see stream.go) unless the request asks for the
	// plan, which is then the aggregated statement's, as PostgREST's.
	opts.Stream = run.explain == nil
	main, explain := sqlgen.Read(p, opts)
	out, err := e.readTransaction(r, req, cache, id, p, rep, main, explain, txOptions{readOnly: true, run: run})
	if err != nil {
		return nil, err
	}
	if !out.explained {
		out.contentLocation = contentLocationOf(r, req)
	}
	out.setLegacyNames(p.LegacyNames())
	return out, nil
}

// relationQuery is the table or view a read or write names, and its
// parsed query.
func relationQuery(req *apirequest.Request, cache *schemacache.Cache) (*schemacache.Relation, *apirequest.Query, *apierr.Error) {
	rel, ok := cache.Relation(req.Schema, req.Name)
	if !ok {
		return nil, nil, apierr.TableNotFound(req.Schema, req.Name, closestRelation(cache, req.Schema, req.Name))
	}
	q, aerr := req.ParseQuery()
	return rel, q, aerr
}

// contentLocation is the read's canonical address, as PostgREST sends it:
// the path and the query parameters sorted by name.
func contentLocation(req *apirequest.Request) string {
	if req.RawQuery == "" {
		return "/" + req.Name
	}
	if querySorted(req.RawQuery) {
		// Already in order (one parameter, say): the sort below would
		// give the query back as it is.
		return "/" + req.Name + "?" + req.RawQuery
	}
	// The non-empty parameters, on the stack for most query strings.
	var store [16]string
	params := store[:0]
	for param := range strings.SplitSeq(req.RawQuery, "&") {
		if param != "" {
			params = append(params, param)
		}
	}
	slices.SortStableFunc(params, func(a, b string) int {
		ka, _, _ := strings.Cut(a, "=")
		kb, _, _ := strings.Cut(b, "=")
		return strings.Compare(ka, kb)
	})
	var loc strings.Builder
	loc.Grow(len(req.Name) + 2 + len(req.RawQuery))
	loc.WriteString("/")
	loc.WriteString(req.Name)
	loc.WriteString("?")
	for i, param := range params {
		if i > 0 {
			loc.WriteString("&")
		}
		loc.WriteString(param)
	}
	return loc.String()
}

// querySorted says whether the query string has no empty parameter and
// its parameters' names are in order: what contentLocation's sort and
// join would leave unchanged.
func querySorted(rawQuery string) bool {
	prev := ""
	for param := range strings.SplitSeq(rawQuery, "&") {
		if param == "" {
			return false
		}
		key, _, _ := strings.Cut(param, "=")
		if key < prev {
			return false
		}
		prev = key
	}
	return true
}

// planRead negotiates the representation and plans a read of rel's rows
// (a table's, or a function's result).
func (e *Executor) planRead(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, rel *schemacache.Relation,
	q *apirequest.Query) (*plan.Read, apirequest.Representation, *apierr.Error) {
	rep, aerr := negotiateMedia(r.Header.Get("Accept"), cache, relationTarget(rel, q))
	if aerr != nil {
		return nil, rep, aerr
	}
	p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{
		MaxRows: e.cfg.MaxRows, AggregatesEnabled: e.cfg.AggregatesEnabled, RangeHeader: rangeHeader(r, req),
		LegacyTargetNames: !e.cfg.NoLegacyTargetNames})
	return p, rep, aerr
}

// rangeHeader is the Range header, which PostgREST reads on GET only.
func rangeHeader(r *http.Request, req *apirequest.Request) string {
	if req.Method != http.MethodGet {
		return ""
	}
	return r.Header.Get("Range")
}

// readOptions are the statement options of a read or a call's result.
func (e *Executor) readOptions(req *apirequest.Request, rep apirequest.Representation) sqlgen.ReadOptions {
	return sqlgen.ReadOptions{Representation: rep, Count: req.Preferences.Count, MaxRows: e.cfg.MaxRows,
		NoBody: req.Method == http.MethodHead}
}

// readTransaction runs a read statement (and its EXPLAIN, for planned
// counts) and turns the result into a response: the total, the singular
// check, Content-Type, Content-Range and the status.
func (e *Executor) readTransaction(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity,
	p *plan.Read, rep apirequest.Representation, main sqlgen.Statement, explain *sqlgen.Statement,
	opts txOptions) (*output, error) {
	count := req.Preferences.Count
	var extras []sqlgen.Statement
	if explain != nil {
		extras = append(extras, *explain)
	}
	opts.checks, opts.extras = readChecks(rep, opts.checks), extras
	out, extraResults, err := e.transactWith(r, req, cache, id, main, opts)
	if err != nil || out.explained {
		return out, err
	}
	if explain != nil {
		planned, err := plannedRows(extraResults[0])
		if err != nil {
			out.discardStream()
			return nil, err
		}
		out.total = countTotal(count, out.total, planned, e.cfg.MaxRows)
	}
	if err := decodeHandlerBody(out, rep); err != nil {
		out.discardStream()
		return nil, err
	}
	out.contentType = rep.ContentType()
	if req.Method == http.MethodHead {
		out.noBody = true
	}
	// out.preferenceApplied holds what the transaction honoured: tx=. timezone=
	// follows, in Serve (timezoneApplied).
	out.preferenceApplied = appliedReadPreferences(req.Preferences, out.preferenceApplied)
	if err := rangeStatus(out, p.Range.Offset); err != nil {
		out.discardStream()
		return out, err
	}
	return out, nil
}

// countTotal is the total of a planned or estimated count, as PostgREST
// works it out: planned is the planner's estimate; estimated is the
// exact count (counted one row past db_max_rows) unless that passes
// db_max_rows, and then the larger of it and the estimate. Without
// db_max_rows every exact count passes it (PostgREST compares with an
// absent maximum, which is less than any count), so the estimate wins
// whenever it is larger.
func countTotal(count string, exact *int64, planned, maxRows int64) *int64 {
	if count == "planned" || exact == nil {
		return &planned
	}
	if maxRows == 0 || *exact > maxRows {
		total := max(*exact, planned)
		return &total
	}
	return exact
}

// readChecks are the checks of a read's result: a singular
// representation's (PGRST116), then checks.
func readChecks(rep apirequest.Representation, checks pageChecks) pageChecks {
	if rep.Media != apirequest.MediaSingleObject {
		return checks
	}
	return append(pageChecks{singularCheck()}, checks...)
}

// rangeStatus sets Content-Range and the status PostgREST gives a page:
// 206 when a known total has rows beyond the page, 416 when the offset
// lies past the total.
func rangeStatus(out *output, offset int64) error {
	out.contentRange = contentRange(offset, out.pageTotal, out.total)
	if out.total == nil {
		return nil
	}
	total := *out.total
	if offset > total {
		e := apierr.RangeOutOfBounds(offset, total)
		e.Headers = http.Header{"Content-Range": {"*/" + strconv.FormatInt(total, 10)}}
		return e
	}
	if out.pageTotal < total {
		out.status = http.StatusPartialContent
	}
	return nil
}

// plannedRows reads the row estimate of the top plan node from an
// EXPLAIN (FORMAT JSON) result.
func plannedRows(res *txResult) (int64, error) {
	if len(res.rows) != 1 || len(res.rows[0]) != 1 {
		return 0, apierr.Internal("unexpected EXPLAIN result")
	}
	var plans []struct {
		Plan struct {
			Rows json.Number `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(res.rows[0][0], &plans); err != nil || len(plans) != 1 {
		return 0, apierr.Internal("unreadable EXPLAIN result")
	}
	f, err := strconv.ParseFloat(string(plans[0].Plan.Rows), 64)
	if err != nil {
		return 0, apierr.Internal("unreadable EXPLAIN row estimate")
	}
	return int64(f), nil
}

// closestRelation suggests a relation of schema for a misspelt name.
func closestRelation(cache *schemacache.Cache, schemaName, name string) string {
	names := make([]string, 0, len(cache.Relations[schemaName]))
	for n := range cache.Relations[schemaName] {
		names = append(names, n)
	}
	return plan.Closest(name, names)
}
