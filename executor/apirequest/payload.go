package apirequest

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// Payload is a write's request body as rows of JSON objects.
type Payload struct {
	// Keys are the first row's keys, in body order.
	Keys []string
	// Rows is the JSON array of row objects sent to the database.
	Rows []byte
	// Object is the body's one row when it was an object (or a form)
	// rather than an array.
	Object []byte
	// First is the body's first row as a JSON object (the object itself
	// when the body is one); nil when there is no row. PATCH sets the
	// columns from it alone, as PostgREST does with an array.
	First []byte
	// Count is the number of rows.
	Count int
}

// ParsePayload reads a body in the given media type. anyKeys (columns=
// given) lets the rows of a JSON array carry different keys: a key missing
// from a row is NULL, or the default with Prefer: missing=default, as in
// PostgREST.
func ParsePayload(contentType string, body []byte, anyKeys bool) (*Payload, *apierr.Error) {
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

func jsonPayload(body []byte, anyKeys bool) (*Payload, *apierr.Error) {
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
		return &Payload{Keys: keys, Rows: rows, Object: body, First: body, Count: 1}, nil
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(body, &elems); err != nil {
			return nil, apierr.InvalidBody("Empty or invalid json")
		}
		p := &Payload{Rows: body, Count: len(elems)}
		if len(elems) > 0 {
			p.First = elems[0]
		}
		var want map[string]bool
		for i, el := range elems {
			keys, err := objectKeys(el)
			if err != nil {
				return nil, apierr.InvalidBody("All object keys must match")
			}
			if i == 0 {
				p.Keys = keys
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
func formPayload(body []byte) (*Payload, *apierr.Error) {
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
	return &Payload{Keys: keys, Rows: rows, Object: object, First: object, Count: 1}, nil
}

// writeJSONString writes s as a JSON string, escaped as encoding/json
// escapes it.
func writeJSONString(out *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // a string always encodes
	out.Write(b)
}
