package executor

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schema"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// invoke answers GET, HEAD and POST on /rpc/<function>. Rows a function
// returns take the read language (select, filters, order, limit, embeds,
// counts) as a table's do.
func (e *Executor) invoke(r *http.Request, req *apirequest.Request, cache *schema.Cache, id jwtauth.Identity) (*output, error) {
	isPost := req.Method == http.MethodPost
	parse := apirequest.ParseRPCQuery
	if isPost {
		parse = apirequest.ParseQuery
	}
	q, aerr := parse(req.RawQuery)
	if aerr != nil {
		return nil, aerr
	}
	args, keys, aerr := callArguments(req, q, isPost)
	if aerr != nil {
		return nil, aerr
	}
	fn, wholeBody, aerr := resolveFunction(cache, req, keys, isPost)
	if aerr != nil {
		return nil, aerr
	}
	call := sqlgen.Call{Function: fn, WholeBody: wholeBody, Args: args}
	if wholeBody {
		call.Args = req.Body
		if len(bytes.TrimSpace(call.Args)) == 0 {
			call.Args = []byte("{}")
		}
	} else {
		for _, p := range fn.Params {
			if contains(keys, p.Name) {
				call.Given = append(call.Given, p)
			}
		}
	}
	readOnly := !isPost || fn.Volatility != 'v'
	prefs := req.Preferences
	var check func(*output) error
	if prefs.Handling == "strict" && prefs.MaxAffected != nil {
		if !fn.Returns.Set {
			return nil, apierr.MaxAffectedRPCViolation()
		}
		check = func(out *output) error {
			if out.pageTotal > *prefs.MaxAffected {
				return apierr.MaxAffectedViolation(out.pageTotal)
			}
			return nil
		}
	}
	if fn.Returns.Shape == schema.ReturnsComposite {
		out, err := e.invokeRows(r, req, cache, id, q, fn, call, readOnly, check)
		if err != nil {
			return nil, err
		}
		out.preferenceApplied = e.appliedCallPreferences(prefs)
		return out, nil
	}
	if fn.Returns.Set {
		if call.Range, aerr = apirequest.RootRange(rangeHeader(r, req), q.Ranges); aerr != nil {
			return nil, aerr
		}
		if e.cfg.MaxRows > 0 && (call.Range.Limit == nil || *call.Range.Limit > e.cfg.MaxRows) {
			limit := e.cfg.MaxRows
			call.Range.Limit = &limit
		}
		call.Count = prefs.Count != ""
	}
	out, _, err := e.transactWith(r, req, cache, id, sqlgen.CallFunction(call),
		txOptions{readOnly: readOnly, check: check, settings: e.hoisted(fn.Settings)})
	if err != nil {
		return nil, err
	}
	if readOnly && check != nil {
		if err := check(out); err != nil {
			return nil, err
		}
	}
	// Every call result carries a Content-Range, as in PostgREST: "0-0/*"
	// for one value, void included.
	out.contentRange = contentRange(0, out.pageTotal, out.total)
	switch {
	case fn.Returns.Shape == schema.ReturnsVoid:
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
func (e *Executor) invokeRows(r *http.Request, req *apirequest.Request, cache *schema.Cache, id jwtauth.Identity,
	q *apirequest.Query, fn *schema.Function, call sqlgen.Call, readOnly bool, check func(*output) error) (*output, error) {
	rel, ok := cache.Relation(fn.Returns.RelationSchema, fn.Returns.RelationName)
	if !ok {
		rel = &schema.Relation{Schema: fn.Schema, Name: fn.Name}
	}
	p, rep, aerr := e.planRead(r, req, cache, rel, q)
	if aerr != nil {
		return nil, aerr
	}
	main, explain := sqlgen.CallRead(call, p, e.readOptions(req, rep), !fn.Returns.Set)
	out, err := e.readTransaction(r, req, cache, id, p, rep, main, explain,
		txOptions{readOnly: readOnly, check: check, settings: e.hoisted(fn.Settings)})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// callArguments reads the arguments: the JSON (or form) body of a POST,
// the query string's arguments of a GET. keys are the argument names,
// sorted.
func callArguments(req *apirequest.Request, q *apirequest.Query, isPost bool) (args []byte, keys []string, aerr *apierr.Error) {
	if !isPost {
		obj := map[string]any{}
		for _, p := range q.RPCParams {
			switch prev := obj[p.Name].(type) {
			case nil:
				obj[p.Name] = p.Value
				keys = append(keys, p.Name)
			case string:
				// A repeated argument is an array (variadic and array
				// parameters), as PostgREST reads it.
				obj[p.Name] = []string{prev, p.Value}
			case []string:
				obj[p.Name] = append(prev, p.Value)
			}
		}
		sort.Strings(keys)
		args, _ = json.Marshal(obj)
		return args, keys, nil
	}
	switch req.ContentType {
	case "application/json":
		body := bytes.TrimSpace(req.Body)
		if len(body) == 0 {
			return []byte("{}"), nil, nil
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(body, &obj); err != nil {
			if !json.Valid(body) {
				return nil, nil, apierr.InvalidBody("Empty or invalid json")
			}
			// Valid JSON that is not an object can still go whole to a
			// function with a single unnamed json parameter.
			return body, nil, nil
		}
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return body, keys, nil
	case "application/x-www-form-urlencoded":
		form, err := url.ParseQuery(string(req.Body))
		if err != nil {
			return nil, nil, apierr.InvalidBody("Invalid form body: " + err.Error())
		}
		obj := map[string]string{}
		for k, vs := range form {
			obj[k] = vs[len(vs)-1]
			keys = append(keys, k)
		}
		sort.Strings(keys)
		args, _ = json.Marshal(obj)
		return args, keys, nil
	}
	return nil, nil, apierr.UnsupportedContentType(req.ContentType)
}

// resolveFunction picks the overload the request calls, as PostgREST
// does: every required parameter given, nothing given that is not a
// parameter; or, for a JSON POST, a single unnamed json/jsonb parameter
// taking the whole body. wholeBody reports the latter.
func resolveFunction(cache *schema.Cache, req *apirequest.Request, keys []string, isPost bool) (*schema.Function, bool, *apierr.Error) {
	candidates := cache.FunctionsNamed(req.Schema, req.Name)
	singleObject := req.Preferences.Params == "single-object"
	var matches, wholeBody []*schema.Function
	for _, f := range candidates {
		switch {
		case singleObject:
			if len(f.Params) == 1 && isJSONType(f.Params[0].Type) {
				wholeBody = append(wholeBody, f)
			}
		case paramsMatch(f, keys):
			matches = append(matches, f)
		case isPost && req.ContentType == "application/json" && len(f.Params) == 1 &&
			f.Params[0].Name == "" && isJSONType(f.Params[0].Type):
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
	return nil, false, noFunction(cache, req, keys, candidates, isPost)
}

// paramsMatch: the given keys are exactly the required parameters plus
// any of the optional ones.
func paramsMatch(f *schema.Function, keys []string) bool {
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

func isJSONType(t string) bool { return t == "json" || t == "jsonb" }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ambiguous is PGRST203 listing each candidate's signature.
func ambiguous(fs []*schema.Function) *apierr.Error {
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
func noFunction(cache *schema.Cache, req *apirequest.Request, keys []string, candidates []*schema.Function, isPost bool) *apierr.Error {
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
		for n := range cache.Functions[req.Schema] {
			names = append(names, n)
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

// closestParams picks the most similar parameter list; parameter names
// are no secret, so any similarity will do, as in PostgREST.
func closestParams(given string, lists []string) string {
	sort.Strings(lists)
	best, bestScore := "", -1.0
	for _, l := range lists {
		if s := plan.Similarity(given, l); s > bestScore {
			best, bestScore = l, s
		}
	}
	return best
}
