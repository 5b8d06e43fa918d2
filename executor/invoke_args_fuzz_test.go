package executor

import (
	"encoding/json"
	"slices"
	"testing"
)

// FuzzJSONCallInput checks the JSON bodies of POST /rpc: every failure is a
// 4xx PGRST102; otherwise the arguments are one JSON object holding every
// key named (sorted, each once), and the whole body is valid JSON.
func FuzzJSONCallInput(f *testing.F) {
	for _, seed := range []string{
		`{"a":1,"b":"x"}`, `[{"a":1,"b":2},{"b":3,"a":4}]`, `[{"a":1},{"b":2}]`, `[]`, `{}`, `{"a":1,"a":2}`,
		`[1]`, `"s"`, `5`, `null`, ``, ` {"k":{"n":[1,{"m":null}]}} `, `{"a":`, `[{"\u00e9":1}]`, `[{}, 1]`,
	} {
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, body string, anyShape bool) {
		in, err := jsonCallInput([]byte(body), anyShape)
		if err != nil {
			expectBodyError(t, body, err)
			if err.Code != "PGRST102" {
				t.Fatalf("%q: code %s", body, err.Code)
			}
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(in.object, &obj) != nil {
			t.Fatalf("%q: arguments %q are no JSON object", body, in.object)
		}
		if !slices.IsSorted(in.keys) || len(slices.Compact(slices.Clone(in.keys))) != len(in.keys) {
			t.Fatalf("%q: keys %q not sorted and unique", body, in.keys)
		}
		for _, k := range in.keys {
			if _, ok := obj[k]; !ok {
				t.Fatalf("%q: key %q missing from the arguments %q", body, k, in.object)
			}
		}
		if !json.Valid(in.body) {
			t.Fatalf("%q: whole body %q is not JSON", body, in.body)
		}
	})
}
