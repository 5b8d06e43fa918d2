package write

import (
	"encoding/json"
	"testing"
)

// TestCSVBodies: text/csv bodies are read as PostgREST reads them (with
// cassava), and bodies it refuses get its code and message word for word.
func TestCSVBodies(t *testing.T) {
	s := startServer(t)
	csv := []string{"Content-Type", "text/csv", "Prefer", "return=representation"}
	runWriteCases(t, s, "", []writeCase{
		{
			name:   "rows after the header, CRLF line ends and a trailing empty line",
			method: "POST", path: "/items?select=name,sku", body: "name,sku\r\nrake,R-1\r\nhoe,NULL\r\n\r\n", headers: csv,
			status: 201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[{"name":"rake","sku":"R-1"},{"name":"hoe","sku":null}]`,
			table: "select name, sku from api.items where id > 4 order by id", rows: `[{"name":"rake","sku":"R-1"},{"name":"hoe","sku":null}]`,
		},
		{
			name:   "a row longer than the header loses its extra fields",
			method: "POST", path: "/items?select=name,sku", body: "name,sku\nrake,R-1,extra\n", headers: csv,
			status: 201, contentRange: "*/*", applied: []string{"return=representation"},
			want:  `[{"name":"rake","sku":"R-1"}]`,
			table: "select name, sku from api.items where id > 4", rows: `[{"name":"rake","sku":"R-1"}]`,
		},
		{
			name:   "a header without rows inserts nothing",
			method: "POST", path: "/items", body: "name,sku\n", headers: csv,
			status: 201, contentRange: "*/*", applied: []string{"return=representation"}, want: `[]`, unchanged: true,
		},
		{
			name:   "a PATCH takes the first row",
			method: "PATCH", path: "/items?id=eq.1&select=id,name", body: "name\nmallet\nsaw\n", headers: csv,
			status: 200, contentRange: "0-0/*", applied: []string{"return=representation"}, want: `[{"id":1,"name":"mallet"}]`,
			table: "select name from api.items where id = 1", rows: `[{"name":"mallet"}]`,
		},
	}, nil)
	bad := func(message string) string {
		return `{"code":"PGRST102","message":` + quoteJSON(message) + `,"details":null,"hint":null}`
	}
	csvOnly := []string{"Content-Type", "text/csv"}
	runErrorCases(t, s, []errorCase{
		{name: "a row shorter than the first", method: "POST", path: "/items", body: "name,sku\nrake,R-1\nhoe", headers: csvOnly,
			status: 400, code: "PGRST102", want: bad("All lines must have same number of fields")},
		{name: "a first row shorter than a later one", method: "POST", path: "/items", body: "name,sku\nrake\nhoe,H-1\n", headers: csvOnly,
			status: 400, code: "PGRST102", want: bad("All lines must have same number of fields")},
		{name: "an empty body", method: "POST", path: "/items", body: "", headers: csvOnly,
			status: 400, code: "PGRST102", want: bad(`parse error (not enough input) at ""`)},
		{name: "a header without a line end", method: "POST", path: "/items", body: "name,sku", headers: csvOnly,
			status: 400, code: "PGRST102", want: bad(`parse error (not enough input) at ""`)},
		{name: "a quote inside an unquoted field", method: "POST", path: "/items", body: "name,sku\nra\"ke,R-1\n", headers: csvOnly,
			status: 400, code: "PGRST102", want: bad(`parse error (Failed reading: satisfy) at "\"ke,R-1\n"`)},
		{name: "text after a closing quote", method: "POST", path: "/items", body: "name\n\"rake\"x\n", headers: csvOnly,
			status: 400, code: "PGRST102", want: bad(`parse error (Failed reading: satisfy) at "x\n"`)},
		{name: "an unknown column", method: "POST", path: "/items", body: "name,colour\nrake,red\n", headers: csvOnly,
			status: 400, code: "PGRST204",
			want: `{"code":"PGRST204","message":"Could not find the 'colour' column of 'items' in the schema cache","details":null,"hint":null}`},
	})
}

// quoteJSON renders s as a JSON string.
func quoteJSON(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
