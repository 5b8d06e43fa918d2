package apirequest

import (
	"reflect"
	"testing"
)

func TestParsePayload(t *testing.T) {
	tests := []struct {
		name, contentType, body string
		anyKeys                 bool
		wantKeys                []string
		wantRows, wantObject    string
		wantCount               int
		wantErr                 string
	}{
		{"an object is one row, keys in body order", "application/json", ` {"b":1,"a":{"x":[1]}} `, false,
			[]string{"b", "a"}, `[{"b":1,"a":{"x":[1]}}]`, `{"b":1,"a":{"x":[1]}}`, 1, ""},
		{"an array of objects with the same keys", "application/json", `[{"a":1,"b":2},{"b":3,"a":4}]`, false,
			[]string{"a", "b"}, `[{"a":1,"b":2},{"b":3,"a":4}]`, "", 2, ""},
		{"an empty array has no rows", "application/json", `[]`, false, nil, `[]`, "", 0, ""},
		{"objects with different keys are refused", "application/json", `[{"a":1},{"b":2}]`, false,
			nil, "", "", 0, "All object keys must match"},
		{"objects with different keys pass with columns=", "application/json", `[{"a":1},{"b":2}]`, true,
			[]string{"a"}, `[{"a":1},{"b":2}]`, "", 2, ""},
		{"an array of non-objects is refused", "application/json", `[1,2]`, false, nil, "", "", 0, "All object keys must match"},
		{"a scalar is refused", "application/json", `42`, false, nil, "", "", 0, "Empty or invalid json"},
		{"an empty body is refused", "application/json", ``, false, nil, "", "", 0, "Empty or invalid json"},
		{"malformed JSON is refused", "application/json", `{"a":`, false, nil, "", "", 0, "Empty or invalid json"},
		{"a form is one row of strings", "application/x-www-form-urlencoded", `b=x+y&a=%26`, false,
			[]string{"b", "a"}, `[{"a":"\u0026","b":"x y"}]`, `{"a":"\u0026","b":"x y"}`, 1, ""},
		{"CSV rows take the header's keys; unquoted NULL is null", "text/csv", "a,b\n1,NULL\n\"x,y\",\n", false,
			[]string{"a", "b"}, `[{"a":"1","b":null},{"a":"x,y","b":""}]`, "", 2, ""},
		{"a repeated CSV column name takes the last column", "text/csv", "b,a,b\n1,2,3\n", false,
			[]string{"b", "a"}, `[{"b":"3","a":"2"}]`, "", 1, ""},
		{"CSV values are escaped as JSON strings", "text/csv", "a\n\"q\"\"<\\\n\"\n", false,
			[]string{"a"}, `[{"a":"q\"\u003c\\\n"}]`, "", 1, ""},
		{"CSV with a header only has no rows and so no keys", "text/csv", "a,b\n", false, nil, `[]`, "", 0, ""},
		{"CSV rows must all have the first row's fields", "text/csv", "a,b\nfoo,bar\nbaz", false, nil, "", "", 0,
			"All lines must have same number of fields"},
		{"CSV rows as short as each other take the names they reach", "text/csv", "a,b\nfoo\nbar\n", false,
			[]string{"a"}, `[{"a":"foo"},{"a":"bar"}]`, "", 2, ""},
		{"a CSV row longer than the header loses its extra fields", "text/csv", "a,b\n1,2,3\n", false,
			[]string{"a", "b"}, `[{"a":"1","b":"2"}]`, "", 1, ""},
		{"CSV lines end with CRLF or CR, and empty lines are skipped", "text/csv", "a\r\n1\r\n\n2\r3", false,
			[]string{"a"}, `[{"a":"1"},{"a":"2"},{"a":"3"}]`, "", 3, ""},
		{"an empty CSV body is cassava's parse error", "text/csv", "", false, nil, "", "", 0,
			`parse error (not enough input) at ""`},
		{"a CSV header without a line end is cassava's parse error", "text/csv", "a,b", false, nil, "", "", 0,
			`parse error (not enough input) at ""`},
		{"a quote inside an unquoted CSV field is cassava's parse error", "text/csv", "a,b\nx\"y,z\n", false, nil, "", "", 0,
			`parse error (Failed reading: satisfy) at "\"y,z\n"`},
		{"text after a closing CSV quote is cassava's parse error", "text/csv", "a\n\"x\"é\n", false, nil, "", "", 0,
			`parse error (Failed reading: satisfy) at "\195\169\n"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePayload(tt.contentType, []byte(tt.body), tt.anyKeys)
			if tt.wantErr != "" {
				if err == nil || err.Code != "PGRST102" || err.Message != tt.wantErr {
					t.Fatalf("got %+v, %v; want PGRST102 %q", p, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Keys, tt.wantKeys) || string(p.Rows) != tt.wantRows ||
				string(p.Object) != tt.wantObject || p.Count != tt.wantCount {
				t.Errorf("got keys %v rows %s object %s count %d", p.Keys, p.Rows, p.Object, p.Count)
			}
		})
	}
	t.Run("another media type is 415 PGRST107", func(t *testing.T) {
		if _, err := ParsePayload("text/xml", []byte("<a/>"), false); err == nil || err.Code != "PGRST107" || err.Status != 415 {
			t.Fatalf("got %v", err)
		}
	})
}
