package apirequest

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// CallInput is what a request passes to a function, read before the
// function is known.
type CallInput struct {
	// Keys are the argument names, sorted: they choose the overload.
	Keys []string
	// Object is the JSON object of named arguments of a JSON or CSV body
	// (an array's first element: PostgREST calls the function once, with
	// the first object).
	Object []byte
	// Values are the arguments of a query string or form body, a name
	// given more than once keeping every value.
	Values map[string][]string
	// Body goes whole to a function's single unnamed parameter: the JSON
	// body to a json or jsonb one, the raw body to a text, xml or bytea one.
	Body []byte
	// RawType is the type of unnamed parameter a raw body calls for:
	// text (text/plain), xml (text/xml) or bytea (application/octet-stream);
	// "" for every other body.
	RawType string
}

// rawBodyTypes maps the media types whose body is passed raw to the type of
// the single unnamed parameter taking it.
var rawBodyTypes = map[string]string{
	"text/plain":               "text",
	"text/xml":                 "xml",
	"application/octet-stream": "bytea",
}

// ReadCallInput reads the arguments: the body of a POST by its media type,
// the query string's arguments of a GET or HEAD. columns= of a POST names
// the body keys that are arguments; the others are ignored, as in
// PostgREST.
func ReadCallInput(req *Request, q *Query, isPost bool) (*CallInput, *apierr.Error) {
	if !isPost {
		in := &CallInput{Values: map[string][]string{}}
		for _, p := range q.RPCParams {
			in.Values[p.Name] = append(in.Values[p.Name], p.Value)
		}
		in.Keys = sortedArgNames(in.Values)
		return in, nil
	}
	if t, ok := rawBodyTypes[req.ContentType]; ok {
		return &CallInput{Body: req.Body, RawType: t}, nil
	}
	var in *CallInput
	var aerr *apierr.Error
	switch req.ContentType {
	case "application/json":
		in, aerr = jsonCallInput(req.Body, q.Columns != nil)
	case "application/x-www-form-urlencoded":
		form, err := url.ParseQuery(string(req.Body))
		if err != nil {
			return nil, apierr.InvalidBody("Invalid form body: " + err.Error())
		}
		in = &CallInput{Values: form, Keys: sortedArgNames(form)}
	case "text/csv":
		p, perr := csvPayload(req.Body)
		if perr != nil {
			return nil, perr
		}
		in, aerr = jsonCallInput(p.Rows, false)
	default:
		return nil, apierr.UnsupportedContentType(req.ContentType)
	}
	if aerr != nil {
		return nil, aerr
	}
	if q.Columns != nil {
		in.Keys = append([]string(nil), q.Columns...)
		sort.Strings(in.Keys)
	}
	return in, nil
}

// jsonCallInput reads a JSON body as PostgREST does: an object's keys are
// the argument names; an array of objects with the same keys calls the
// function with its first object; anything else is no arguments, and an
// empty array to a single unnamed json parameter. anyShape (columns=
// given) skips the check that an array's objects carry the same keys.
func jsonCallInput(raw []byte, anyShape bool) (*CallInput, *apierr.Error) {
	body := bytes.TrimSpace(raw)
	if len(body) == 0 {
		return &CallInput{Object: []byte("{}"), Body: []byte("{}")}, nil
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
		return &CallInput{Keys: dedupSorted(keys), Object: body, Body: body}, nil
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(body, &elems); err != nil {
			return nil, apierr.InvalidBody("Empty or invalid json")
		}
		in := &CallInput{Object: []byte("{}"), Body: body}
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
		in.Keys, in.Object = first, elems[0]
		return in, nil
	}
	// A number, string, boolean or null: no arguments, and an empty array
	// for a single unnamed json parameter, as PostgREST truncates it.
	return &CallInput{Object: []byte("{}"), Body: []byte("[]")}, nil
}

// ArgumentsFor is the JSON object of arguments for fn. A name given more
// than once in a query string or form is an array for a variadic or array
// parameter and its last value otherwise, as PostgREST reads it.
func (in *CallInput) ArgumentsFor(fn *schemacache.Function) []byte {
	if in.Values == nil {
		return in.Object
	}
	multi := map[string]bool{}
	for _, p := range fn.Params {
		multi[p.Name] = p.Variadic || p.TypeArrayDims > 0
	}
	obj := make(map[string]any, len(in.Values))
	for k, vs := range in.Values {
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
