package apirequest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// expectBodyError fails t unless err is a 4xx contract error.
func expectBodyError(t *testing.T, what string, err *apierr.Error) {
	t.Helper()
	if err.Status < 400 || err.Status > 499 || err.Code == "" || err.Message == "" {
		t.Fatalf("%s: not a 4xx contract error: %+v", what, err)
	}
}

// FuzzJSONPayload checks JSON bodies: a payload's rows are a JSON array
// of count objects, its keys are exactly the first object's keys (each
// once, in body order) and every failure is a 4xx PGRST102.
func FuzzJSONPayload(f *testing.F) {
	for _, seed := range []string{
		`{"a":1,"b":"x"}`, `[{"a":1},{"a":2}]`, `[{"a":1},{"b":2}]`, `[]`, `{}`, `{"a":1,"a":2}`,
		`[1]`, `"s"`, ``, ` {"k":{"n":[1,{"m":null}]}} `, `{"a":`, `[{"\u00e9":1}]`,
	} {
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, body string, anyKeys bool) {
		p, err := ParsePayload("application/json", []byte(body), anyKeys)
		if err != nil {
			expectBodyError(t, body, err)
			if err.Code != "PGRST102" {
				t.Fatalf("%q: code %s", body, err.Code)
			}
			return
		}
		var rows []map[string]json.RawMessage
		if jerr := json.Unmarshal(p.Rows, &rows); jerr != nil {
			t.Fatalf("%q: rows %s are not an array of objects: %v", body, p.Rows, jerr)
		}
		if len(rows) != p.Count {
			t.Fatalf("%q: count %d for %d rows", body, p.Count, len(rows))
		}
		if len(rows) == 0 {
			return
		}
		if got, want := sortedUnique(p.Keys), sortedKeys(rows[0]); !slices.Equal(got, want) || len(got) != len(p.Keys) {
			t.Fatalf("%q: keys %q, the first object has %q", body, p.Keys, want)
		}
		if p.Object != nil && (p.Count != 1 || !json.Valid(p.Object)) {
			t.Fatalf("%q: object %s with count %d", body, p.Object, p.Count)
		}
	})
}

// FuzzCSVPayload checks CSV bodies: a table written with encoding/csv
// comes back as its rows, by header name (an unquoted NULL as null), and
// any other body is rows or a 4xx PGRST102.
func FuzzCSVPayload(f *testing.F) {
	f.Add("a", "b", "1", "NULL", "x,y", "", "a,b\n1,2\n")
	f.Add("id", "name", "\"q\"", "line\nbreak", " spaced ", "é", "a\n\"unterminated")
	f.Add("", "x", "", "", "", "", "")
	f.Fuzz(func(t *testing.T, h1, h2, v1, v2, v3, v4, raw string) {
		p, err := ParsePayload("text/csv", []byte(raw), false)
		if err != nil {
			expectBodyError(t, raw, err)
		} else if !json.Valid(p.Rows) {
			t.Fatalf("%q: rows %s are not JSON", raw, p.Rows)
		}

		header := []string{h1, h2}
		table := [][]string{{v1, v2}, {v3, v4}}
		if h1 == h2 || !csvRoundTrips(header, table) {
			return
		}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		_ = w.WriteAll(append([][]string{header}, table...))
		p, err = ParsePayload("text/csv", buf.Bytes(), false)
		if err != nil {
			t.Fatalf("%q: %v", buf.String(), err)
		}
		var rows []map[string]*string
		if jerr := json.Unmarshal(p.Rows, &rows); jerr != nil || len(rows) != len(table) || p.Count != len(table) {
			t.Fatalf("%q: rows %s (count %d): %v", buf.String(), p.Rows, p.Count, jerr)
		}
		if !slices.Equal(p.Keys, header) {
			t.Fatalf("%q: keys %q", buf.String(), p.Keys)
		}
		for i, rec := range table {
			for j, name := range header {
				got := rows[i][name]
				switch {
				case rec[j] == "NULL" && got != nil:
					t.Fatalf("%q: row %d %s: NULL read as %q", buf.String(), i, name, *got)
				case rec[j] != "NULL" && (got == nil || *got != rec[j]):
					t.Fatalf("%q: row %d %s: %q read as %v", buf.String(), i, name, rec[j], got)
				}
			}
		}
	})
}

// csvRoundTrips says whether encoding/csv reads back what it writes for
// this table: not for carriage returns (read back as newlines), nor for a
// record of one empty field (an empty line, which the reader skips), nor
// for invalid UTF-8 (JSON replaces it).
func csvRoundTrips(header []string, table [][]string) bool {
	for _, rec := range append([][]string{header}, table...) {
		if strings.Join(rec, "") == "" && len(rec) == 1 {
			return false
		}
		for _, v := range rec {
			if strings.ContainsRune(v, '\r') || !utf8.ValidString(v) {
				return false
			}
		}
	}
	return true
}

// FuzzFormPayload checks form bodies: one row whose keys are exactly the
// form's distinct keys, or a 4xx PGRST102.
func FuzzFormPayload(f *testing.F) {
	for _, seed := range []string{"a=1&b=2", "a=1&a=2", "=x&&y", "a=%zz", "k+1=v%20w&%26=%3D", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		p, err := ParsePayload("application/x-www-form-urlencoded", []byte(body), false)
		if err != nil {
			expectBodyError(t, body, err)
			return
		}
		var obj map[string]string
		if jerr := json.Unmarshal(p.Object, &obj); jerr != nil {
			t.Fatalf("%q: object %s: %v", body, p.Object, jerr)
		}
		if got := sortedUnique(p.Keys); !slices.Equal(got, sortedKeys(obj)) || len(got) != len(p.Keys) {
			// JSON cannot carry invalid UTF-8 keys: they become U+FFFD, and
			// two may then meet. Only valid keys must match exactly.
			for _, k := range p.Keys {
				if !utf8.ValidString(k) {
					return
				}
			}
			t.Fatalf("%q: keys %q, object %s", body, p.Keys, p.Object)
		}
		if p.Count != 1 || string(p.Rows) != "["+string(p.Object)+"]" {
			t.Fatalf("%q: rows %s count %d", body, p.Rows, p.Count)
		}
	})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortedUnique(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}
