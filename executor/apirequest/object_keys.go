package apirequest

import (
	"bytes"
	"encoding/json"
	"errors"
)

// colon is the byte that follows every key of an object.
var colon = []byte{':'}

// objectKeys returns a JSON object's keys in body order, each once (the
// first of a repeated key keeps its place). raw must already be valid
// JSON (json.Valid, or an element json.Unmarshal cut out of valid JSON):
// validity is not checked again here. Anything but an object is an error.
//
// It scans the bytes instead of running encoding/json's token decoder,
// which allocated for every token and was most of a one-row insert's
// body handling. A key is decoded exactly as encoding/json decodes it: a
// plain printable-ASCII key is taken as it is, any other (escapes,
// control or non-ASCII bytes) goes through json.Unmarshal, so invalid
// UTF-8 becomes U+FFFD as before.
func objectKeys(raw []byte) ([]string, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, errNotObject
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return nil, nil
	}
	// Every key is followed by a colon, so the colons bound the keys (a
	// colon in a value or a nested object only adds room): the list is
	// allocated once instead of grown key by key. Past a few keys it
	// grows as before, so that a body of many colons reserves no more.
	keys := make([]string, 0, min(bytes.Count(raw, colon), 8))
	var seen map[string]struct{} // past linearKeys keys
	for i < len(raw) {
		if raw[i] != '"' {
			return nil, errNotObject
		}
		end := stringEnd(raw, i)
		if end < 0 {
			return nil, errNotObject
		}
		key, err := decodeKey(raw[i:end])
		if err != nil {
			return nil, err
		}
		if !seenKey(keys, &seen, key) {
			keys = append(keys, key)
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, errNotObject
		}
		if i = valueEnd(raw, skipSpace(raw, i+1)); i < 0 {
			return nil, errNotObject
		}
		i = skipSpace(raw, i)
		if i >= len(raw) {
			break
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return keys, nil
		default:
			return nil, errNotObject
		}
	}
	return nil, errNotObject
}

var errNotObject = errors.New("not an object")

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index just past the JSON string starting at b[i]
// (its opening quote), or -1 when it does not end.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++ // the escaped byte is never the closing quote
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd is the index just past the JSON value starting at b[i], or -1.
// Nested arrays and objects are skipped by depth; their strings by
// stringEnd, so a bracket inside a string does not count.
func valueEnd(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			if i = stringEnd(b, i); i < 0 {
				return -1
			}
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing object
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	if depth == 0 {
		return i
	}
	return -1
}

// decodeKey decodes a quoted JSON string as encoding/json does.
func decodeKey(quoted []byte) (string, error) {
	plain := true
	for _, c := range quoted[1 : len(quoted)-1] {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var s string
	err := json.Unmarshal(quoted, &s)
	return s, err
}

// linearKeys is how many keys are searched one by one; past it a map
// takes over, so a hostile body of many keys costs linear time, not
// quadratic.
const linearKeys = 16

// seenKey says whether key is among keys, the keys so far; seen is the
// map of them once there are more than linearKeys.
func seenKey(keys []string, seen *map[string]struct{}, key string) bool {
	if len(keys) <= linearKeys {
		for _, k := range keys {
			if k == key {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]struct{}, 2*len(keys))
		for _, k := range keys {
			(*seen)[k] = struct{}{}
		}
	}
	if _, ok := (*seen)[key]; ok {
		return true
	}
	(*seen)[key] = struct{}{}
	return false
}
