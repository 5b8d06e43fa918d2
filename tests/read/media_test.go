package read

import (
	"maps"
	"mime"
	"net/http"
	"testing"
)

// expectMediaType compares a Content-Type by its parsed media type and
// parameters, so the spacing between parameters does not count.
func expectMediaType(t testing.TB, res *response, want string) {
	t.Helper()
	got := res.Header.Get("Content-Type")
	gt, gp, err := mime.ParseMediaType(got)
	if err != nil {
		t.Fatalf("Content-Type %q: %v", got, err)
	}
	wt, wp, err := mime.ParseMediaType(want)
	if err != nil {
		t.Fatalf("want %q: %v", want, err)
	}
	if gt != wt || !maps.Equal(gp, wp) {
		t.Errorf("Content-Type %q, want %q", got, want)
	}
}

// TestMediaTypes negotiates the response's media type from Accept: JSON
// arrays, the singular object, CSV, stripped nulls, and refusals.
func TestMediaTypes(t *testing.T) {
	s := startServer(t)
	const (
		object         = "application/vnd.pgrst.object+json"
		objectStripped = "application/vnd.pgrst.object+json;nulls=stripped"
		arrayStripped  = "application/vnd.pgrst.array+json;nulls=stripped"
		jsonType       = "application/json; charset=utf-8"
	)

	t.Run("JSON", func(t *testing.T) {
		for _, c := range []struct {
			name   string
			accept []string
		}{
			{"is the default without Accept", nil},
			{"answers application/json", []string{"Accept", "application/json"}},
			{"answers */*", []string{"Accept", "*/*"}},
			{"wins by quality over CSV", []string{"Accept", "text/csv;q=0.5, application/json"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				res := s.Get(t, "/clients?select=id,country&id=in.(1,9)&order=id", c.accept...)
				res.ExpectStatus(t, http.StatusOK)
				expectHeader(t, res, "Content-Type", jsonType)
				expectCompactBody(t, res.Body, `[{"id":1,"country":"US"},{"id":9,"country":null}]`)
			})
		}
	})

	t.Run("the singular object", func(t *testing.T) {
		t.Run("is the one row as an object", func(t *testing.T) {
			res := s.Get(t, "/clients?select=id,name,country&id=eq.9", "Accept", object)
			res.ExpectStatus(t, http.StatusOK)
			expectHeader(t, res, "Content-Type", "application/vnd.pgrst.object+json; charset=utf-8")
			expectHeader(t, res, "Content-Range", "0-0/*")
			expectCompactBody(t, res.Body, `{"id":9,"name":"The \"Best\" Co","country":null}`)
		})
		t.Run("is also asked for without +json", func(t *testing.T) {
			res := s.Get(t, "/tasks?select=id,title&id=eq.58", "Accept", "application/vnd.pgrst.object")
			res.ExpectStatus(t, http.StatusOK)
			expectCompactBody(t, res.Body, `{"id":58,"title":"O'Brien's request: export (CSV)"}`)
		})
		t.Run("takes the one row that limit leaves", func(t *testing.T) {
			res := s.Get(t, "/tasks?select=id&order=id.desc&limit=1", "Accept", object)
			res.ExpectStatus(t, http.StatusOK)
			expectCompactBody(t, res.Body, `{"id":60}`)
		})
		runFailuresWith(t, s, []string{"Accept", object}, []failure{
			{name: "refuses no rows with PGRST116", path: "/clients?select=id&id=eq.99", status: http.StatusNotAcceptable, code: "PGRST116",
				message: "Cannot coerce the result to a single JSON object", details: "The result contains 0 rows"},
			{name: "refuses two rows with PGRST116", path: "/clients?select=id&id=in.(4,9)", status: http.StatusNotAcceptable, code: "PGRST116",
				message: "Cannot coerce the result to a single JSON object", details: "The result contains 2 rows"},
			{name: "refuses every row of a table with PGRST116", path: "/tasks?select=id", status: http.StatusNotAcceptable, code: "PGRST116",
				message: "Cannot coerce the result to a single JSON object", details: "The result contains 60 rows"},
		})
	})

	t.Run("stripped nulls", func(t *testing.T) {
		t.Run("drop the null keys of every array element", func(t *testing.T) {
			res := s.Get(t, "/clients?select=id,name,country,email&id=in.(3,9)&order=id", "Accept", arrayStripped)
			res.ExpectStatus(t, http.StatusOK)
			expectMediaType(t, res, arrayStripped+"; charset=utf-8")
			expectCompactBody(t, res.Body, `[{"id":3,"name":"Initech","country":"US"},{"id":9,"name":"The \"Best\" Co"}]`)
		})
		t.Run("drop the null keys of the singular object", func(t *testing.T) {
			res := s.Get(t, "/clients?select=id,name,country,email&id=eq.9", "Accept", objectStripped)
			res.ExpectStatus(t, http.StatusOK)
			expectMediaType(t, res, objectStripped+"; charset=utf-8")
			expectCompactBody(t, res.Body, `{"id":9,"name":"The \"Best\" Co"}`)
		})
		t.Run("drop null keys inside JSON values too, as json_strip_nulls does", func(t *testing.T) {
			res := s.Get(t, "/projects?select=id,budget,settings->limits&id=eq.7", "Accept", arrayStripped)
			res.ExpectStatus(t, http.StatusOK)
			expectCompactBody(t, res.Body, `[{"id":7,"budget":45000.50,"limits":{"tasks":100}}]`)
		})
		t.Run("still refuse several rows for the object", func(t *testing.T) {
			checkFailure(t, s.Get(t, "/clients?select=id&id=in.(4,9)", "Accept", objectStripped), failure{status: http.StatusNotAcceptable,
				code: "PGRST116", message: "Cannot coerce the result to a single JSON object", details: "The result contains 2 rows"})
		})
	})

	t.Run("CSV", func(t *testing.T) {
		for _, c := range []struct {
			name, path, want string
		}{
			{"quotes values as PostgreSQL's record text does", "/clients?select=id,name,country,email&id=in.(4,9)&order=id",
				"id,name,country,email\n" +
					"4,\"Umbrella, Inc.\",GB,finance@umbrella.example\n" +
					"9,\"The \"\"Best\"\" Co\",,"},
			{"writes arrays, enums, NULLs and numerics as PostgreSQL does", "/tasks?select=id,title,status,priority,tags,estimate_hours,due_on&project_id=eq.11&order=id",
				"id,title,status,priority,tags,estimate_hours,due_on\n" +
					"55,\"Fix \"\"Save\"\" button (again)\",in_progress,1,\"{ui,\"\"needs review\"\"}\",2.5,2024-03-01\n" +
					"56,\"Migrate CI, then deploy\",todo,,\"{ops,c++}\",,\n" +
					"57,\"Ünïcödé handling — emoji 🚀\",review,2,{i18n},8.0,2024-03-15\n" +
					"58,\"O'Brien's request: export (CSV)\",done,3,\"{export,\"\"csv, tsv\"\"}\",1.0,2024-02-28\n" +
					"59,Cleanup,cancelled,4,{},0.5,\n" +
					"60,cleanup,todo,4,,0.5,"},
			{"quotes an empty string and writes booleans as t and f", "/articles?select=id,title,body,published&id=in.(11,12)&order=id",
				"id,title,body,published\n" +
					"11,\"Quotes, commas (and parentheses)\",\"Escaping \"\"quoted\"\" values, commas, and (parenthesized) text in filters is tricky.\",t\n" +
					"12,\"Empty thoughts\",\"\",f"},
			{"doubles backslashes in JSON text", "/projects?select=id,settings&id=in.(1,7)&order=id",
				"id,settings\n" +
					"1,\"{\"\"color\"\": \"\"red\"\", \"\"public\"\": true}\"\n" +
					"7,\"{\"\"motto\"\": \"\"Ça va, \\\\\"\"ok\\\\\"\" (v2)\"\", \"\"limits\"\": {\"\"tasks\"\": 100, \"\"members\"\": null}}\""},
			{"names aliased columns in the header", "/tasks?select=n:id,t:title&id=eq.1",
				"n,t\n1,\"Design login\""},
			{"is a lone newline for no rows", "/clients?select=id&id=eq.99", "\n"},
		} {
			t.Run(c.name, func(t *testing.T) {
				res := s.Get(t, c.path, "Accept", "text/csv")
				res.ExpectStatus(t, http.StatusOK)
				expectHeader(t, res, "Content-Type", "text/csv; charset=utf-8")
				if string(res.Body) != c.want {
					t.Errorf("body\n got %q\nwant %q", res.Body, c.want)
				}
			})
		}
		t.Run("wins by quality over JSON", func(t *testing.T) {
			res := s.Get(t, "/tasks?select=id&id=eq.1", "Accept", "application/json;q=0.5, text/csv")
			res.ExpectStatus(t, http.StatusOK)
			expectHeader(t, res, "Content-Type", "text/csv; charset=utf-8")
			if string(res.Body) != "id\n1" {
				t.Errorf("body %q", res.Body)
			}
		})
	})

	t.Run("an Accept nothing satisfies is 406 PGRST107", func(t *testing.T) {
		for _, accept := range []string{"image/png", "text/html, image/png"} {
			t.Run(accept, func(t *testing.T) {
				checkFailure(t, s.Get(t, "/clients?select=id", "Accept", accept), failure{status: http.StatusNotAcceptable,
					code: "PGRST107", message: "None of these media types are available: " + accept})
			})
		}
	})

	t.Run("HEAD has GET's headers and no body", func(t *testing.T) {
		for _, c := range []struct {
			name, path, accept string
		}{
			{"for JSON", "/clients?select=id&order=id&limit=3", "application/json"},
			{"for CSV", "/clients?select=id&order=id&limit=3", "text/csv"},
			{"for the singular object", "/clients?select=id&id=eq.4", object},
			{"for stripped nulls", "/clients?select=id,email&id=eq.9", arrayStripped},
		} {
			t.Run(c.name, func(t *testing.T) {
				get := s.Get(t, c.path, "Accept", c.accept, "Prefer", exact)
				head := s.Head(t, c.path, "Accept", c.accept, "Prefer", exact)
				head.ExpectStatus(t, get.Status)
				if len(head.Body) != 0 {
					t.Errorf("HEAD has a body: %q", head.Body)
				}
				for _, h := range []string{"Content-Type", "Content-Range"} {
					if head.Header.Get(h) == "" || head.Header.Get(h) != get.Header.Get(h) {
						t.Errorf("%s: HEAD %q, GET %q", h, head.Header.Get(h), get.Header.Get(h))
					}
				}
			})
		}
		t.Run("and refuses several rows for the singular object", func(t *testing.T) {
			head := s.Head(t, "/clients?select=id", "Accept", object)
			head.ExpectError(t, http.StatusNotAcceptable, "PGRST116")
		})
		t.Run("and refuses an Accept nothing satisfies", func(t *testing.T) {
			head := s.Head(t, "/clients?select=id", "Accept", "image/png")
			head.ExpectError(t, http.StatusNotAcceptable, "PGRST107")
		})
	})
}

// runFailuresWith is runFailures with the same request headers for every
// case.
func runFailuresWith(t *testing.T, s *server, headers []string, cases []failure) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkFailure(t, s.Get(t, c.path, headers...), c)
		})
	}
}
