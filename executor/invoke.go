package executor

import (
	"net/http"
	"strconv"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// invoke answers GET, HEAD and POST on /rpc/<function>. Rows a function
// returns take the read language (select, filters, order, limit, embeds,
// counts) as a table's do.
func (e *Executor) invoke(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity,
	run mainRun) (*output, error) {
	isPost := req.Method == http.MethodPost
	parse := req.ParseRPCQuery
	if isPost {
		parse = req.ParseQuery
	}
	q, aerr := parse()
	if aerr != nil {
		return nil, aerr
	}
	call, aerr := plan.BuildCall(cache, req, q)
	if aerr != nil {
		return nil, aerr
	}
	fn := call.Function
	readOnly := !isPost || fn.Volatility != 'v'
	prefs := req.Preferences
	var checks pageChecks
	if prefs.Handling == "strict" && prefs.MaxAffected != nil {
		if !fn.Returns.Set {
			return nil, apierr.MaxAffectedRPCViolation()
		}
		checks = pageChecks{maxAffectedCheck(*prefs.MaxAffected)}
	}
	if fn.Returns.Shape == schemacache.ReturnsComposite {
		out, err := e.invokeRows(r, req, cache, id, q, fn, call, txOptions{readOnly: readOnly, checks: checks,
			settings: e.hoisted(fn.Settings), volatile: fn.Volatility == 'v', run: run})
		if err != nil || out.explained {
			return out, err
		}
		out.preferenceApplied = e.appliedCallPreferences(prefs)
		return out, nil
	}
	// A scalar result renders as JSON or, for a function returning a
	// media type domain, as that media type: negotiated before the call.
	rep, aerr := negotiateMedia(r.Header.Get("Accept"), cache, mediaTarget{
		name: schemacache.QualifiedName{Schema: fn.Schema, Name: fn.Name}, defaultSelect: hasDefaultSelect(q), scalar: true})
	if aerr != nil {
		return nil, aerr
	}
	if rep.Media == apirequest.MediaHandler {
		call.Handler = rep.Handler
	}
	if fn.Returns.Set {
		if call.Range, aerr = apirequest.RootRange(rangeHeader(r, req), q.Ranges); aerr != nil {
			return nil, aerr
		}
		if e.cfg.MaxRows > 0 && (call.Range.Limit == nil || *call.Range.Limit > e.cfg.MaxRows) {
			limit := e.cfg.MaxRows
			call.Range.Limit = &limit
		}
		call.Count = countsCall(prefs.Count)
	}
	// A call that writes checks its result in SQL, to roll back there.
	call.RecordPageTotal = !readOnly && len(checks) > 0
	out, _, err := e.transactWith(r, req, cache, id, sqlgen.CallFunction(*call),
		txOptions{readOnly: readOnly, checks: checks, settings: e.hoisted(fn.Settings), volatile: fn.Volatility == 'v', run: run})
	if err != nil || out.explained {
		return out, err
	}
	if !fn.Returns.Set && countsCall(prefs.Count) {
		// One value counts as one, as PostgREST counts the call's row.
		one := int64(1)
		out.total = &one
	}
	if call.Handler != nil {
		if err := decodeHandlerBody(out, rep); err != nil {
			return nil, err
		}
	}
	// The Content-Type is the negotiated media type's, as PostgREST's:
	// a scalar asked for as vnd.pgrst.object is answered as one.
	out.contentType = rep.ContentType()
	// Every call result carries a Content-Range, as in PostgREST: "0-0/*"
	// for one value, void included ("0-0/1" counted).
	out.contentRange = contentRange(0, out.pageTotal, out.total)
	switch {
	case fn.Returns.Shape == schemacache.ReturnsVoid:
		out.status, out.noBody = http.StatusNoContent, true
	case fn.Returns.Set:
		// Every count of a set of scalars is exact: there is no table
		// for the planner to estimate.
		if err := rangeStatus(out, call.Range.Offset); err != nil {
			return nil, err
		}
	}
	if req.Method == http.MethodHead {
		out.noBody = true
	}
	out.preferenceApplied = e.appliedCallPreferences(prefs)
	return out, nil
}

// appliedCallPreferences is a call's Preference-Applied, in PostgREST's
// order: count, tx (when db_tx_end lets it apply), handling, and
// max-affected when handling is strict (it is ignored otherwise).
func (e *Executor) appliedCallPreferences(p apirequest.Preferences) []string {
	var list []string
	if p.Count != "" {
		list = append(list, "count="+p.Count)
	}
	if _, tx := e.txOutcome(p); tx != "" {
		list = append(list, tx)
	}
	if p.Handling != "" {
		list = append(list, "handling="+p.Handling)
	}
	if p.Handling == "strict" && p.MaxAffected != nil {
		list = append(list, "max-affected="+strconv.FormatInt(*p.MaxAffected, 10))
	}
	return list
}

// invokeRows calls a function returning rows through the read path. The
// rows are those of the table the function returns, when it returns one
// (so they embed like the table's), else of an anonymous row type.
func (e *Executor) invokeRows(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity,
	q *apirequest.Query, fn *schemacache.Function, call *plan.Call, opts txOptions) (*output, error) {
	// A call's rows are counted exactly for count=exact and estimated and
	// not at all for planned, as PostgREST counts them.
	counted := *req
	counted.Preferences.Count = ""
	if countsCall(req.Preferences.Count) {
		counted.Preferences.Count = "exact"
	}
	req = &counted
	rel, ok := cache.Relation(fn.Returns.RelationSchema, fn.Returns.RelationName)
	if !ok {
		rel = &schemacache.Relation{Schema: fn.Schema, Name: fn.Name}
	}
	p, rep, aerr := e.planRead(r, req, cache, rel, q)
	if aerr != nil {
		return nil, aerr
	}
	readOpts := e.readOptions(req, rep)
	// A call that writes checks its result in SQL, to roll back there.
	readOpts.RecordPageTotal = !opts.readOnly && len(readChecks(rep, opts.checks)) > 0
	// A set of rows streams as a table's do (see stream.go), unless the
	// request asks for the plan. What the function sets (response.headers,
	// response.status) is read once the count has run it whole, before
	// the first row goes out, as for a table's computed columns. One row
	// (a function not SETOF, or Accept: vnd.pgrst.object) is small by
	// nature and built whole (CallRead renders it as one object), as is a
	// scalar result (CallFunction).
	readOpts.Stream = opts.run.explain == nil && fn.Returns.Set
	main, explain := sqlgen.CallRead(*call, p, readOpts, !fn.Returns.Set)
	out, err := e.readTransaction(r, req, cache, id, p, rep, main, explain, opts)
	if err != nil {
		return nil, err
	}
	out.setLegacyNames(p.LegacyNames())
	return out, nil
}

// countsCall says whether Prefer: count asks a call for its total:
// PostgREST counts a function's result exactly for count=exact and
// count=estimated, and not at all for count=planned (there is no table for
// the planner to estimate).
func countsCall(count string) bool { return count == "exact" || count == "estimated" }
