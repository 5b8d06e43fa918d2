package plan

import (
	"sort"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// wholeBodyTypes maps a POST body's media type to the types of the single
// unnamed parameter that takes the body whole.
var wholeBodyTypes = map[string][]string{
	"application/json":         {"json", "jsonb"},
	"text/plain":               {"text"},
	"text/xml":                 {"xml"},
	"application/octet-stream": {"bytea"},
}

// takesWholeBody says whether f has a single unnamed parameter of a type
// that takes a POST body of contentType whole.
func takesWholeBody(f *schemacache.Function, contentType string) bool {
	if len(f.Params) != 1 || f.Params[0].Name != "" {
		return false
	}
	for _, t := range wholeBodyTypes[contentType] {
		if f.Params[0].Type == t {
			return true
		}
	}
	return false
}

// callable says whether /rpc can call f, as PostgREST decides: every
// parameter named, or a single unnamed one of a type a body can fill
// (json, jsonb, text, xml, bytea). Functions taking a table's row unnamed
// stay in the schema cache as computed columns, but are no endpoint.
func callable(f *schemacache.Function) bool {
	unnamed := 0
	var t string
	for _, p := range f.Params {
		if p.Name == "" {
			unnamed++
			t = p.Type
		}
	}
	switch unnamed {
	case 0:
		return true
	case 1:
		switch t {
		case "json", "jsonb", "text", "xml", "bytea":
			return true
		}
	}
	return false
}

// callableFunctions keeps the callable functions of fs.
func callableFunctions(fs []*schemacache.Function) []*schemacache.Function {
	var out []*schemacache.Function
	for _, f := range fs {
		if callable(f) {
			out = append(out, f)
		}
	}
	return out
}

// resolveFunction picks the overload the request calls, as PostgREST
// does: every required parameter given, nothing given that is not a
// parameter; or, for a POST, a single unnamed parameter taking the whole
// body: json or jsonb for application/json, text for text/plain, xml for
// text/xml, bytea for application/octet-stream. wholeBody reports the
// latter. Functions PostgREST cannot call (more than one unnamed
// parameter, or one of another type) are not candidates.
func resolveFunction(cache *schemacache.Cache, req *apirequest.Request, in *apirequest.CallInput, isPost bool) (*schemacache.Function, bool, *apierr.Error) {
	candidates := callableFunctions(cache.FunctionsNamed(req.Schema, req.Name))
	keys := in.Keys
	var matches, wholeBody []*schemacache.Function
	for _, f := range candidates {
		switch {
		case paramsMatch(f, keys) && !(in.RawType != "" && len(f.Params) == 0):
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
	if in.RawType != "" {
		return nil, false, apierr.NoFunctionForBody(req.Schema, req.Name, in.RawType)
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
		if c := Closest(req.Name, names); c != "" {
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
		if s := Similarity(given, l); s >= bestScore && (best == "" || s > bestScore) {
			best, bestScore = l, s
		}
	}
	return best
}

const minParamsSimilarity = 0.33
