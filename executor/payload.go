package executor

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// payload is a write's request body as rows of JSON objects.
type payload struct {
	// keys are the first row's keys, in body order.
	keys []string
	// rows is the JSON array of row objects sent to the database.
	rows []byte
	// object is the body's one row when it was an object (or a form)
	// rather than an array.
	object []byte
	// first is the body's first row as a JSON object (the object itself
	// when the body is one); nil when there is no row. PATCH sets the
	// columns from it alone, as PostgREST does with an array.
	first []byte
	count int
}

// parsePayload reads a body in the given media type. anyKeys (columns=
// given) lets the rows of a JSON array carry different keys: a key missing
// from a row is NULL, or the default with Prefer: missing=default, as in
// PostgREST.
func parsePayload(contentType string, body []byte, anyKeys bool) (*payload, *apierr.Error) {
	switch contentType {
	case "application/json":
		return jsonPayload(body, anyKeys)
	case "application/x-www-form-urlencoded":
		return formPayload(body)
	case "text/csv":
		return csvPayload(body)
	}
	return nil, apierr.UnsupportedContentType(contentType)
}

func jsonPayload(body []byte, anyKeys bool) (*payload, *apierr.Error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || !json.Valid(body) {
		return nil, apierr.InvalidBody("Empty or invalid json")
	}
	switch body[0] {
	case '{':
		keys, err := objectKeys(body)
		if err != nil {
			return nil, apierr.InvalidBody("Empty or invalid json")
		}
		rows := make([]byte, 0, len(body)+2)
		rows = append(append(append(rows, '['), body...), ']')
		return &payload{keys: keys, rows: rows, object: body, first: body, count: 1}, nil
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(body, &elems); err != nil {
			return nil, apierr.InvalidBody("Empty or invalid json")
		}
		p := &payload{rows: body, count: len(elems)}
		if len(elems) > 0 {
			p.first = elems[0]
		}
		var want map[string]bool
		for i, el := range elems {
			keys, err := objectKeys(el)
			if err != nil {
				return nil, apierr.InvalidBody("All object keys must match")
			}
			if i == 0 {
				p.keys = keys
				want = make(map[string]bool, len(keys))
				for _, k := range keys {
					want[k] = true
				}
				continue
			}
			if anyKeys {
				continue
			}
			// Without columns= every row must carry the same keys: a
			// missing key would otherwise silently become NULL (or the
			// default).
			if len(keys) != len(want) {
				return nil, apierr.InvalidBody("All object keys must match")
			}
			for _, k := range keys {
				if !want[k] {
					return nil, apierr.InvalidBody("All object keys must match")
				}
			}
		}
		return p, nil
	}
	return nil, apierr.InvalidBody("Empty or invalid json")
}

// formPayload reads one row from a form body; values are strings.
func formPayload(body []byte) (*payload, *apierr.Error) {
	var keys []string
	obj := map[string]string{}
	for _, pair := range strings.Split(string(body), "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return nil, apierr.InvalidBody("Invalid form body")
		}
		if _, dup := obj[key]; !dup {
			keys = append(keys, key)
		}
		obj[key] = val
	}
	object, _ := json.Marshal(obj)
	rows := append(append([]byte{'['}, object...), ']')
	return &payload{keys: keys, rows: rows, object: object, first: object, count: 1}, nil
}

// writeJSONString writes s as a JSON string, escaped as encoding/json
// escapes it.
func writeJSONString(out *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // a string always encodes
	out.Write(b)
}
