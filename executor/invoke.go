package executor

import (
	"net/http"
	"sort"
	"strconv"
	"strings"

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
func (e *Executor) invoke(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity) (*output, error) {
	isPost := req.Method == http.MethodPost
	parse := req.ParseRPCQuery
	if isPost {
		parse = req.ParseQuery
	}
	q, aerr := parse()
	if aerr != nil {
		return nil, aerr
	}
	in, aerr := readCallInput(req, q, isPost)
	if aerr != nil {
		return nil, aerr
	}
	fn, wholeBody, aerr := resolveFunction(cache, req, in, isPost)
	if aerr != nil {
		return nil, aerr
	}
	call := sqlgen.Call{Function: fn, WholeBody: wholeBody}
	switch {
	case wholeBody:
		call.Args = wholeBodyArgument(fn, in.body)
	default:
		call.Args = in.argumentsFor(fn)
		for _, p := range fn.Params {
			if contains(in.keys, p.Name) {
				call.Given = append(call.Given, p)
			}
		}
	}
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
		out, err := e.invokeRows(r, req, cache, id, q, fn, call, readOnly, checks)
		if err != nil {
			return nil, err
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
	out, _, err := e.transactWith(r, req, cache, id, sqlgen.CallFunction(call),
		txOptions{readOnly: readOnly, checks: checks, settings: e.hoisted(fn.Settings), volatile: fn.Volatility == 'v'})
	if err != nil {
		return nil, err
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
	q *apirequest.Query, fn *schemacache.Function, call sqlgen.Call, readOnly bool, checks pageChecks) (*output, error) {
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
	opts := e.readOptions(req, rep)
	// A call that writes checks its result in SQL, to roll back there.
	opts.RecordPageTotal = !readOnly && len(readChecks(rep, checks)) > 0
	main, explain := sqlgen.CallRead(call, p, opts, !fn.Returns.Set)
	out, err := e.readTransaction(r, req, cache, id, p, rep, main, explain,
		txOptions{readOnly: readOnly, checks: checks, settings: e.hoisted(fn.Settings), volatile: fn.Volatility == 'v'})
	if err != nil {
		return nil, planLegacyNames(err, p)
	}
	out.legacyNames = p.LegacyNames()
	return out, nil
}

// resolveFunction picks the overload the request calls, as PostgREST
// does: every required parameter given, nothing given that is not a
// parameter; or, for a POST, a single unnamed parameter taking the whole
// body: json or jsonb for application/json, text for text/plain, xml for
// text/xml, bytea for application/octet-stream. wholeBody reports the
// latter. Functions PostgREST cannot call (more than one unnamed
// parameter, or one of another type) are not candidates.
func resolveFunction(cache *schemacache.Cache, req *apirequest.Request, in *callInput, isPost bool) (*schemacache.Function, bool, *apierr.Error) {
	candidates := callableFunctions(cache.FunctionsNamed(req.Schema, req.Name))
	keys := in.keys
	var matches, wholeBody []*schemacache.Function
	for _, f := range candidates {
		switch {
		case paramsMatch(f, keys) && !(in.rawType != "" && len(f.Params) == 0):
			matches = append(matches, f)
		case isPost && takesWholeBody(f, req.ContentType):
			wholeBody = append(wholeBody, f)
		}
	}
	switch {
	case len(matches) == 1:
		return matches[0], false, nil
	case len(matches) > 1:
		return nil, false, ambiguous(matches)
	case len(wholeBody) == 1:
		return wholeBody[0], true, nil
	case len(wholeBody) > 1:
		return nil, false, ambiguous(wholeBody)
	}
	if in.rawType != "" {
		return nil, false, apierr.NoFunctionForBody(req.Schema, req.Name, in.rawType)
	}
	return nil, false, noFunction(cache, req, keys, candidates, isPost)
}

// paramsMatch: the given keys are exactly the required parameters plus
// any of the optional ones.
func paramsMatch(f *schemacache.Function, keys []string) bool {
	names := make(map[string]bool, len(f.Params))
	for _, p := range f.Params {
		if p.Name == "" {
			return false // unnamed parameters cannot be passed by name
		}
		names[p.Name] = true
	}
	for _, k := range keys {
		if !names[k] {
			return false
		}
	}
	for _, p := range f.Params {
		if !p.HasDefault && !contains(keys, p.Name) {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ambiguous is PGRST203 listing each candidate's signature.
func ambiguous(fs []*schemacache.Function) *apierr.Error {
	sigs := make([]string, len(fs))
	for i, f := range fs {
		params := make([]string, len(f.Params))
		for j, p := range f.Params {
			params[j] = p.Name + " => " + p.Type
		}
		sigs[i] = f.Schema + "." + f.Name + "(" + strings.Join(params, ", ") + ")"
	}
	sort.Strings(sigs) // the catalog's order varies between loads
	return apierr.AmbiguousFunction(sigs)
}

// noFunction is PGRST202, with a hint at the closest function name or,
// when the name exists, the closest parameter list.
func noFunction(cache *schemacache.Cache, req *apirequest.Request, keys []string, candidates []*schemacache.Function, isPost bool) *apierr.Error {
	searched := " without parameters"
	if len(keys) == 1 {
		searched = " with parameter " + keys[0]
	} else if len(keys) > 1 {
		searched = " with parameters " + strings.Join(keys, ", ")
	}
	if isPost && req.ContentType == "application/json" {
		searched += " or with a single unnamed json/jsonb parameter"
	}
	hint := ""
	if len(candidates) == 0 {
		names := make([]string, 0, len(cache.Functions[req.Schema]))
		for n, fs := range cache.Functions[req.Schema] {
			if len(callableFunctions(fs)) > 0 {
				names = append(names, n)
			}
		}
		if c := plan.Closest(req.Name, names); c != "" {
			hint = "Perhaps you meant to call the function " + req.Schema + "." + c
		}
	} else {
		lists := make([]string, 0, len(candidates))
		for _, f := range candidates {
			names := make([]string, 0, len(f.Params))
			for _, p := range f.Params {
				names = append(names, p.Name)
			}
			sort.Strings(names)
			lists = append(lists, "("+strings.Join(names, ", ")+")")
		}
		if c := closestParams("("+strings.Join(keys, ", ")+")", lists); c != "" {
			hint = "Perhaps you meant to call the function " + req.Schema + "." + req.Name + c
		}
	}
	return apierr.NoFunction(req.Schema, req.Name, keys, searched, hint)
}

// closestParams picks the most similar parameter list. Parameter names are
// no secret, so a low similarity will do, as PostgREST's default fuzzy
// minimum of 0.33 for parameter lists; below it there is no hint.
func closestParams(given string, lists []string) string {
	sort.Strings(lists)
	best, bestScore := "", minParamsSimilarity
	for _, l := range lists {
		if s := plan.Similarity(given, l); s >= bestScore && (best == "" || s > bestScore) {
			best, bestScore = l, s
		}
	}
	return best
}

const minParamsSimilarity = 0.33

// countsCall says whether Prefer: count asks a call for its total:
// PostgREST counts a function's result exactly for count=exact and
// count=estimated, and not at all for count=planned (there is no table for
// the planner to estimate).
func countsCall(count string) bool { return count == "exact" || count == "estimated" }
