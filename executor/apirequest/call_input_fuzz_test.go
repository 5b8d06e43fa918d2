package apirequest

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
		if json.Unmarshal(in.Object, &obj) != nil {
			t.Fatalf("%q: arguments %q are no JSON object", body, in.Object)
		}
		if !slices.IsSorted(in.Keys) || len(slices.Compact(slices.Clone(in.Keys))) != len(in.Keys) {
			t.Fatalf("%q: keys %q not sorted and unique", body, in.Keys)
		}
		for _, k := range in.Keys {
			if _, ok := obj[k]; !ok {
				t.Fatalf("%q: key %q missing from the arguments %q", body, k, in.Object)
			}
		}
		if !json.Valid(in.Body) {
			t.Fatalf("%q: whole body %q is not JSON", body, in.Body)
		}
	})
}
