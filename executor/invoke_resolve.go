package executor

import (
	"encoding/hex"

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

// wholeBodyArgument is the body as the bound value of fn's one parameter.
// Values travel in text format, so a bytea parameter takes the body in
// bytea's hex input form, every byte intact.
func wholeBodyArgument(fn *schemacache.Function, body []byte) []byte {
	if fn.Params[0].Type != "bytea" {
		return body
	}
	out := make([]byte, 2+hex.EncodedLen(len(body)))
	copy(out, `\x`)
	hex.Encode(out[2:], body)
	return out
}
