package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Versions of the document (openapi_version). 2.0 is PostgREST's and the
// default; 3.1 has the same content in OpenAPI 3.1's shape.
const (
	Version20 = "2.0"
	Version31 = "3.1"
)

// ToV31 rewrites a Swagger 2.0 document written by Build as OpenAPI 3.1.0
// with the same content: servers from host, basePath and schemes; request
// bodies and response content per media type from consumes and produces;
// definitions, parameters and security definitions under components, and
// every $ref pointing there. Members keep their order.
//
// It works on the JSON Build wrote rather than on Build's types, so that
// whatever the 2.0 document says, the 3.1 one says too.
func ToV31(v2 []byte) ([]byte, error) {
	doc, err := decodeOrdered(v2)
	if err != nil {
		return nil, fmt.Errorf("reading the 2.0 document: %w", err)
	}
	src, ok := doc.(object)
	if !ok {
		return nil, fmt.Errorf("reading the 2.0 document: not an object")
	}
	c := converter{
		consumes:   strings31(src.get("consumes")),
		produces:   strings31(src.get("produces")),
		bodyParams: map[string]bool{},
	}
	if params, ok := src.get("parameters").(object); ok {
		for _, m := range params {
			if p, ok := m.value.(object); ok && p.get("in") == "body" {
				c.bodyParams[m.key] = true
			}
		}
	}
	var out object
	out.add("openapi", "3.1.0")
	for _, m := range src {
		switch m.key {
		case "swagger", "host", "basePath", "schemes", "consumes", "produces",
			"definitions", "parameters", "securityDefinitions":
			// Moved: servers and components below.
		case "info":
			out.add("info", m.value)
			out.add("servers", servers(src))
		case "paths":
			out.add("paths", c.paths(m.value.(object)))
		default:
			out.add(m.key, c.refs(m.value))
		}
	}
	out.add("components", c.components(src))
	return marshal(out)
}

type converter struct {
	consumes, produces []string
	// bodyParams names the shared parameters that are bodies: in 3.1
	// they are request bodies.
	bodyParams map[string]bool
}

// servers turns host, basePath and schemes into server URLs; without a
// host the URL is the base path, relative to where the document was read.
func servers(src object) []any {
	host, _ := src.get("host").(string)
	base, _ := src.get("basePath").(string)
	if host == "" {
		return []any{object{{"url", base}}}
	}
	var out []any
	for _, scheme := range strings31(src.get("schemes")) {
		out = append(out, object{{"url", scheme + "://" + host + strings.TrimSuffix(base, "/")}})
	}
	return out
}

func (c converter) paths(paths object) object {
	var out object
	for _, p := range paths {
		var item object
		for _, op := range p.value.(object) {
			item.add(op.key, c.operation(op.value.(object)))
		}
		out.add(p.key, item)
	}
	return out
}

func (c converter) operation(op object) object {
	produces := c.produces
	if v := op.get("produces"); v != nil {
		produces = strings31(v)
	}
	var out object
	for _, m := range op {
		switch m.key {
		case "produces", "consumes":
		case "parameters":
			var params []any
			for _, p := range m.value.([]any) {
				p := p.(object)
				if r, ok := p.get("$ref").(string); ok {
					name := strings.TrimPrefix(r, "#/parameters/")
					if c.bodyParams[name] {
						out.add("requestBody", object{{"$ref", "#/components/requestBodies/" + name}})
					} else {
						params = append(params, object{{"$ref", "#/components/parameters/" + name}})
					}
					continue
				}
				if p.get("in") == "body" {
					out.add("requestBody", c.requestBody(p))
					continue
				}
				params = append(params, c.parameter(p))
			}
			if len(params) > 0 {
				out.add("parameters", params)
			}
		case "responses":
			var responses object
			for _, r := range m.value.(object) {
				responses.add(r.key, c.response(r.value.(object), produces))
			}
			out.add("responses", responses)
		default:
			out.add(m.key, c.refs(m.value))
		}
	}
	return out
}

// parameter turns a non-body parameter's type members into a schema.
func (c converter) parameter(p object) object {
	var out, schema object
	for _, m := range p {
		switch m.key {
		case "type", "format", "items", "default", "enum", "maximum", "minimum":
			schema.add(m.key, c.refs(m.value))
		case "collectionFormat":
			// csv, the only format pgrest writes, is form style without
			// explode in 3.x.
			if m.value == "csv" {
				out.add("style", "form")
				out.add("explode", false)
			}
		default:
			out.add(m.key, c.refs(m.value))
		}
	}
	if len(schema) > 0 {
		out.add("schema", schema)
	}
	return out
}

// requestBody turns a body parameter into a request body taking each of
// the document's consumed media types.
func (c converter) requestBody(p object) object {
	var out object
	if d := p.get("description"); d != nil {
		out.add("description", d)
	}
	out.add("content", c.content(c.consumes, p.get("schema")))
	if r := p.get("required"); r != nil {
		out.add("required", r)
	}
	return out
}

func (c converter) response(r object, produces []string) object {
	var out object
	for _, m := range r {
		switch m.key {
		case "schema":
			out.add("content", c.content(produces, m.value))
		default:
			out.add(m.key, c.refs(m.value))
		}
	}
	return out
}

func (c converter) content(media []string, schema any) object {
	var out object
	for _, mt := range media {
		if schema == nil {
			out.add(mt, object{})
		} else {
			out.add(mt, object{{"schema", c.refs(schema)}})
		}
	}
	return out
}

// components gathers definitions, shared parameters, request bodies and
// security schemes.
func (c converter) components(src object) object {
	var out, schemas, params, bodies, security object
	if defs, ok := src.get("definitions").(object); ok {
		for _, d := range defs {
			schemas.add(d.key, c.refs(d.value))
		}
	}
	if ps, ok := src.get("parameters").(object); ok {
		for _, p := range ps {
			if c.bodyParams[p.key] {
				bodies.add(p.key, c.requestBody(p.value.(object)))
			} else {
				params.add(p.key, c.parameter(p.value.(object)))
			}
		}
	}
	if sd, ok := src.get("securityDefinitions").(object); ok {
		for _, s := range sd {
			security.add(s.key, securityScheme31(s.value.(object)))
		}
	}
	out.add("schemas", orEmpty(schemas))
	out.add("parameters", orEmpty(params))
	out.add("requestBodies", orEmpty(bodies))
	if len(security) > 0 {
		out.add("securitySchemes", security)
	}
	return out
}

// securityScheme31: apiKey stays as it is; basic becomes http basic.
func securityScheme31(s object) object {
	if s.get("type") == "basic" {
		out := object{{"type", "http"}, {"scheme", "basic"}}
		if d := s.get("description"); d != nil {
			out.add("description", d)
		}
		return out
	}
	return s
}

// refs rewrites the $refs of a value to components.
func (c converter) refs(v any) any {
	switch v := v.(type) {
	case object:
		out := make(object, 0, len(v))
		for _, m := range v {
			if s, ok := m.value.(string); ok && m.key == "$ref" {
				out.add(m.key, c.ref(s))
				continue
			}
			out.add(m.key, c.refs(m.value))
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = c.refs(e)
		}
		return out
	default:
		return v
	}
}

func (c converter) ref(r string) string {
	if name, ok := strings.CutPrefix(r, "#/definitions/"); ok {
		return "#/components/schemas/" + name
	}
	if name, ok := strings.CutPrefix(r, "#/parameters/"); ok {
		if c.bodyParams[name] {
			return "#/components/requestBodies/" + name
		}
		return "#/components/parameters/" + name
	}
	return r
}

func orEmpty(o object) object {
	if o == nil {
		return object{}
	}
	return o
}

// get returns the value of key, nil when absent.
func (o object) get(key string) any {
	for _, m := range o {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

func strings31(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// decodeOrdered decodes JSON keeping object members in order (as object);
// numbers stay json.Number so they are written back as they were read.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the document")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := object{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o.add(k.(string), v)
		}
		_, err := dec.Token() // }
		return o, err
	case json.Delim('['):
		list := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token() // ]
		return list, err
	default:
		return tok, nil
	}
}
