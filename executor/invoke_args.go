package executor

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// callInput is what a request passes to a function, read before the
// function is known.
type callInput struct {
	// keys are the argument names, sorted: they choose the overload.
	keys []string
	// object is the JSON object of named arguments of a JSON or CSV body
	// (an array's first element: PostgREST calls the function once, with
	// the first object).
	object []byte
	// values are the arguments of a query string or form body, a name
	// given more than once keeping every value.
	values map[string][]string
	// body goes whole to a function's single unnamed parameter: the JSON
	// body to a json or jsonb one, the raw body to a text, xml or bytea one.
	body []byte
	// rawType is the type of unnamed parameter a raw body calls for:
	// text (text/plain), xml (text/xml) or bytea (application/octet-stream);
	// "" for every other body.
	rawType string
}

// rawBodyTypes maps the media types whose body is passed raw to the type of
// the single unnamed parameter taking it.
var rawBodyTypes = map[string]string{
	"text/plain":               "text",
	"text/xml":                 "xml",
	"application/octet-stream": "bytea",
}

// readCallInput reads the arguments: the body of a POST by its media type,
// the query string's arguments of a GET or HEAD. columns= of a POST names
// the body keys that are arguments; the others are ignored, as in
// PostgREST.
func readCallInput(req *apirequest.Request, q *apirequest.Query, isPost bool) (*callInput, *apierr.Error) {
	if !isPost {
		in := &callInput{values: map[string][]string{}}
		for _, p := range q.RPCParams {
			in.values[p.Name] = append(in.values[p.Name], p.Value)
		}
		in.keys = sortedArgNames(in.values)
		return in, nil
	}
	if t, ok := rawBodyTypes[req.ContentType]; ok {
		return &callInput{body: req.Body, rawType: t}, nil
	}
	var in *callInput
	var aerr *apierr.Error
	switch req.ContentType {
	case "application/json":
		in, aerr = jsonCallInput(req.Body, q.Columns != nil)
	case "application/x-www-form-urlencoded":
		form, err := url.ParseQuery(string(req.Body))
		if err != nil {
			return nil, apierr.InvalidBody("Invalid form body: " + err.Error())
		}
		in = &callInput{values: form, keys: sortedArgNames(form)}
	case "text/csv":
		p, perr := csvPayload(req.Body)
		if perr != nil {
			return nil, perr
		}
		in, aerr = jsonCallInput(p.rows, false)
	default:
		return nil, apierr.UnsupportedContentType(req.ContentType)
	}
	if aerr != nil {
		return nil, aerr
	}
	if q.Columns != nil {
		in.keys = append([]string(nil), q.Columns...)
		sort.Strings(in.keys)
	}
	return in, nil
}

// jsonCallInput reads a JSON body as PostgREST does: an object's keys are
// the argument names; an array of objects with the same keys calls the
// function with its first object; anything else is no arguments, and an
// empty array to a single unnamed json parameter. anyShape (columns=
// given) skips the check that an array's objects carry the same keys.
func jsonCallInput(raw []byte, anyShape bool) (*callInput, *apierr.Error) {
	body := bytes.TrimSpace(raw)
	if len(body) == 0 {
		return &callInput{object: []byte("{}"), body: []byte("{}")}, nil
	}
	if !json.Valid(body) {
		return nil, apierr.InvalidBody("Empty or invalid json")
	}
	switch body[0] {
	case '{':
		keys, err := objectKeys(body)
		if err != nil {
			return nil, apierr.InvalidBody("Empty or invalid json")
		}
		sort.Strings(keys)
		return &callInput{keys: dedupSorted(keys), object: body, body: body}, nil
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(body, &elems); err != nil {
			return nil, apierr.InvalidBody("Empty or invalid json")
		}
		in := &callInput{object: []byte("{}"), body: body}
		if len(elems) == 0 {
			return in, nil
		}
		first, err := objectKeys(elems[0])
		if err != nil {
			if anyShape {
				return in, nil
			}
			return nil, apierr.InvalidBody("All object keys must match")
		}
		first = dedupSorted(sortedCopy(first))
		if !anyShape {
			for _, el := range elems[1:] {
				keys, err := objectKeys(el)
				if err != nil || !sameStrings(dedupSorted(sortedCopy(keys)), first) {
					return nil, apierr.InvalidBody("All object keys must match")
				}
			}
		}
		in.keys, in.object = first, elems[0]
		return in, nil
	}
	// A number, string, boolean or null: no arguments, and an empty array
	// for a single unnamed json parameter, as PostgREST truncates it.
	return &callInput{object: []byte("{}"), body: []byte("[]")}, nil
}

// argumentsFor is the JSON object of arguments for fn. A name given more
// than once in a query string or form is an array for a variadic or array
// parameter and its last value otherwise, as PostgREST reads it.
func (in *callInput) argumentsFor(fn *schemacache.Function) []byte {
	if in.values == nil {
		return in.object
	}
	multi := map[string]bool{}
	for _, p := range fn.Params {
		multi[p.Name] = p.Variadic || p.TypeArrayDims > 0
	}
	obj := make(map[string]any, len(in.values))
	for k, vs := range in.values {
		switch {
		case multi[k] && len(vs) > 1:
			obj[k] = vs
		case multi[k] && fnParam(fn, k).Variadic:
			// One value of a variadic parameter is a one-element array.
			obj[k] = vs
		default:
			obj[k] = vs[len(vs)-1]
		}
	}
	args, _ := json.Marshal(obj)
	return args
}

// fnParam is fn's parameter named name (the zero Param if none).
func fnParam(fn *schemacache.Function, name string) schemacache.Param {
	for _, p := range fn.Params {
		if p.Name == name {
			return p
		}
	}
	return schemacache.Param{}
}

func sortedArgNames(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

// dedupSorted drops repeats from a sorted list (a JSON object may repeat a
// key; the last value wins in the database, and the name counts once).
func dedupSorted(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
