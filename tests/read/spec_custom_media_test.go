package read

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// specMediaDB is the database of fixtures.PostgRESTSpecMediaSQL: PostgREST's
// test tables with its media type handlers, PostGIS installed first.
var specMediaDB = &extraDB{name: "pgrest_read_spec_media", sql: fixtures.PostgRESTSpecMediaSQL,
	prepare: pgtest.EnsurePostGIS, timeout: 2 * time.Minute}

// startSpecMediaServer serves PostgREST's schema test with its media type
// handlers, changed by lines.
func startSpecMediaServer(t testing.TB, lines ...string) *server {
	t.Helper()
	base := []string{"db_uri " + specMediaDB.appDSN(t), "db_schemas test"}
	return startServer(t, append(base, lines...)...)
}

// raw marks cases to compare byte for byte.
func raw(cases []specRequest) []specRequest {
	for i := range cases {
		cases[i].raw = true
	}
	return cases
}

// fromHex is the bytes of a fixture file of PostgREST's, as text.
func fromHex(s string) string {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestCustomMediaSpec mirrors PostgREST v16.2's CustomMediaSpec request for
// request against its own fixture's handlers. Where PostgREST prefixes the
// text of a handler over jsonb with the byte 0x01 (the spec's "TODO SOH":
// jsonb's binary format leaks into the body), pgrest sends the JSON alone;
// the README lists the difference.
func TestCustomMediaSpec(t *testing.T) {
	s := startSpecMediaServer(t)
	accept := func(mt string) []string { return []string{"Accept", mt} }
	ct := func(contentType, contentLength string) map[string]string {
		m := map[string]string{"Content-Type": contentType}
		if contentLength != "" {
			m["Content-Length"] = contentLength
		}
		return m
	}
	const (
		linesTWKB = "a20002c09a0cc09a0c80ea3080ea30a2000280b51880b51880ea3080ea30"
		oneTWKB   = "a20002c09a0cc09a0c80ea3080ea30"
		aPNG      = "89504e470d0a1a0a0000000d494844520000001e0000001e010300000001fe3ce100000006504c5445000000ff00001bff8d22" +
			"0000003f4944415408d76360c006d81b6004ff0118c10322641e00090910619100220a8084018828b080110f2480c4ff3f508211" +
			"4c1ce08312cc0dec50821d08710200649012478e4d4c820000000049454e44ae426082"
		linesCSV = "\ufeffid,name,geom\n1,line-1,0102000020E610000002000000000000000000F03F000000000000F03F00000000000014400000000000001440\n" +
			"2,line-2,0102000020E6100000020000000000000000000040000000000000004000000000000018400000000000001840\n"
		welcomeHTML = "\n<html>\n  <head>\n    <title>PostgREST</title>\n  </head>\n  <body>\n    <h1>Welcome to PostgREST</h1>\n  </body>\n</html>\n"
	)
	notAcceptable := func(mt string) string {
		return `{"code":"PGRST107","details":null,"hint":null,"message":"None of these media types are available: ` + mt + `"}`
	}
	const jsonCT = "application/json; charset=utf-8"
	runSpecRequests(t, s, raw([]specRequest{
		{name: "for tables with aggregate/can query if there's an aggregate defined for the table",
			path: "/lines", header: accept("application/vnd.twkb"), body: fromHex(linesTWKB), match: ct("application/vnd.twkb", "30")},
		{name: "for tables with aggregate/can query by id if there's an aggregate defined for the table",
			path: "/lines?id=eq.1", header: accept("application/vnd.twkb"), body: fromHex(oneTWKB), match: ct("application/vnd.twkb", "")},
		{name: "for tables with aggregate/will fail if there's no aggregate defined for the table",
			path: "/lines", header: accept("text/plain"), status: http.StatusNotAcceptable, body: notAcceptable("text/plain"), match: ct(jsonCT, "110")},
		{name: "for tables with aggregate/can get raw xml output with Accept: text/xml if there's an aggregate defined",
			path: "/xmltest", header: accept("text/xml"), body: "<myxml>foo</myxml>bar<foobar><baz/></foobar>", match: ct("text/xml; charset=utf-8", "44")},
		{name: "for tables with anyelement aggregate/will use the application/vnd.geo2+json media type for any table",
			path: "/lines", header: accept("application/vnd.geo2+json"), body: `{"type": "FeatureCollection", "hello": "world"}`, match: ct("application/vnd.geo2+json", "47")},
		{name: "for tables with anyelement aggregate/will use the more specific application/vnd.geo2 handler for this table",
			path: "/shop_bles", header: accept("application/vnd.geo2+json"), body: `"anyelement overridden"`, match: ct("application/vnd.geo2+json", "")},
		{name: "for tables with anyelement aggregate/will use the more specific application/vnd.geo2 handler for this table, rpc",
			path: "/rpc/get_shop_bles", header: accept("application/vnd.geo2+json"), body: `"anyelement overridden"`, match: ct("application/vnd.geo2+json", "")},
		{name: "Proc that returns scalar/can get raw output with Accept: text/html",
			path: "/rpc/welcome.html", header: accept("text/html"), body: welcomeHTML, match: ct("text/html", "117")},
		{name: "Proc that returns scalar/can get raw output with Accept: text/plain",
			path: "/rpc/welcome", header: accept("text/plain"), body: "Welcome to PostgREST", match: ct("text/plain; charset=utf-8", "20")},
		{name: "Proc that returns scalar/can get raw xml output with Accept: text/xml",
			path: "/rpc/return_scalar_xml", header: accept("text/xml"), body: "<my-xml-tag/>", match: ct("text/xml; charset=utf-8", "13")},
		{name: "Proc that returns scalar/can get raw xml output with Accept: text/xml, welcome.xml",
			path: "/rpc/welcome.xml", header: accept("text/xml"),
			body: "<html>\n  <head>\n    <title>PostgREST</title>\n  </head>\n  <body>\n    <h1>Welcome to PostgREST</h1>\n  </body>\n</html>", match: ct("text/xml; charset=utf-8", "")},
		{name: "Proc that returns scalar/should fail with function returning text and Accept: text/xml",
			path: "/rpc/welcome", header: accept("text/xml"), status: http.StatusNotAcceptable, body: notAcceptable("text/xml"), match: ct(jsonCT, "")},
		{name: "Proc that returns scalar/should not fail when the function doesn't return a row",
			path: "/rpc/get_line?id=777", header: accept("application/vnd.twkb"), body: "", match: ct("application/vnd.twkb", "")},
		{name: "Proc that returns scalar based on a table/can get an image with Accept: image/png",
			path: "/rpc/ret_image", header: accept("image/png"), body: fromHex(aPNG), match: ct("image/png", "138")},
		{name: "Proc that returns set of scalars and Accept: text/plain/will err because only scalars work with media type domains",
			path: "/rpc/welcome_twice", header: accept("text/plain"), status: http.StatusNotAcceptable, body: notAcceptable("text/plain"), match: ct(jsonCT, "110")},
		{name: "Proc that returns rows and accepts custom media type/works if it has an aggregate defined",
			path: "/rpc/get_lines", header: accept("application/vnd.twkb"), body: fromHex(linesTWKB), match: ct("application/vnd.twkb", "")},
		{name: "Proc that returns rows and accepts custom media type/fails if doesn't have an aggregate defined",
			path: "/rpc/get_lines", header: accept("application/octet-stream"), status: http.StatusNotAcceptable, body: notAcceptable("application/octet-stream")},
		{name: "Proc that returns rows and accepts custom media type/works if there's an anyelement aggregate defined",
			path: "/rpc/get_lines", header: accept("application/vnd.geo2+json"), body: `{"type": "FeatureCollection", "hello": "world"}`, match: ct("application/vnd.geo2+json", "")},
		{name: "overriding/will override the application/json handler for a single table",
			path: "/ov_json", header: accept("application/json"), body: `{"overridden": "true"}`, match: ct(jsonCT, "22")},
		{name: "overriding/will override the application/geo+json handler for a single table",
			path: "/lines?id=eq.1", header: accept("application/geo+json"),
			body:  `{"crs": {"type": "name", "properties": {"name": "EPSG:4326"}}, "type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[1, 1], [5, 5]]}, "properties": {"id": 1, "name": "line-1"}}]}`,
			match: ct("application/geo+json; charset=utf-8", "238")},
		{name: "overriding/will not override vendored media types like application/vnd.pgrst.object",
			path: "/projects?id=eq.1", header: accept("application/vnd.pgrst.object"), body: `{"id":1,"name":"Windows 7","client_id":1}`,
			match: ct("application/vnd.pgrst.object+json; charset=utf-8", "41")},
		{name: "matches requested media type correctly/will match image/png according to q values",
			path: "/rpc/ret_image", header: accept("image/png, */*"), body: fromHex(aPNG), match: ct("image/png", "138")},
		{name: "matches requested media type correctly/will match image/png according to q values, browser",
			path: "/rpc/ret_image", header: accept("text/html,application/xhtml+xml,application/xml;q=0.9,image/png,*/*;q=0.8"),
			body: fromHex(aPNG), match: ct("image/png", "138")},
		{name: "matches requested media type correctly/will match a custom text/tab-separated-values",
			path: "/projects?id=in.(1,2)", header: accept("text/tab-separated-values"), body: "id\tname\tclient_id\n1\tWindows 7\t1\n2\tWindows 10\t1\n",
			match: ct("text/tab-separated-values", "47")},
		{name: "matches requested media type correctly/will match a custom text/csv with BOM",
			path: "/lines", header: accept("text/csv"), body: linesCSV,
			match: map[string]string{"Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="lines.csv"`, "Content-Length": "216"}},
		{name: "using select query parameter/without select",
			path: "/projects?id=in.(1,2)", header: accept("pg/outfunc"), body: "(1,\"Windows 7\",1)\n(2,\"Windows 10\",1)\n", match: ct("pg/outfunc", "37")},
		{name: "using select query parameter/with fewer columns selected",
			path: "/projects?id=in.(1,2)&select=id,name", header: accept("pg/outfunc"), body: "(1,\"Windows 7\")\n(2,\"Windows 10\")\n", match: ct("pg/outfunc", "")},
		{name: "using select query parameter/with columns in different order",
			path: "/projects?id=in.(1,2)&select=name,id,client_id", header: accept("pg/outfunc"), body: "(\"Windows 7\",1,1)\n(\"Windows 10\",2,1)\n", match: ct("pg/outfunc", "")},
		{name: "using select query parameter/with computed columns",
			path: "/items?id=in.(1,2)&select=id,always_true", header: accept("pg/outfunc"), body: "(1,t)\n(2,t)\n", match: ct("pg/outfunc", "")},
		{name: "using select query parameter/with embedding",
			path: "/projects?id=in.(1,2)&select=*,clients(id)", header: accept("pg/outfunc"),
			body: "(1,\"Windows 7\",1,\"{\"\"id\"\": 1}\")\n(2,\"Windows 10\",1,\"{\"\"id\"\": 1}\")\n", match: ct("pg/outfunc", "")},
		{name: "any media type/on functions/returns application/json for */* if not explicitly set",
			path: "/rpc/ret_any_mt", header: accept("*/*"), body: "any", match: ct("application/octet-stream", "")},
		{name: "any media type/on functions/accepts any media type and sets the generic octet-stream as content type",
			path: "/rpc/ret_any_mt", header: accept("text/bango"), body: "any", match: ct("application/octet-stream", "")},
		{name: "any media type/on functions/returns custom media type for */* if explicitly set",
			path: "/rpc/ret_some_mt", header: accept("*/*"), body: "groucho", match: ct("app/groucho", "")},
		{name: "any media type/on functions/accepts some media types if there's conditional logic",
			path: "/rpc/ret_some_mt", header: accept("app/harpo"), body: "harpo", match: ct("app/harpo", "")},
		{name: "any media type/on tables/returns application/json for */* if not explicitly set",
			path: "/some_numbers?val=eq.1", header: accept("*/*"), body: "anything\n1", match: ct("application/octet-stream", "")},
		{name: "any media type/on tables/accepts any media type and sets it as a header",
			path: "/some_numbers?val=eq.3", header: accept("crazy/bingo"), body: "crazy\n3", match: ct("crazy/bingo", "")},
		{name: "any media type/on tables/accepts any media type and sets it as a header, unknown",
			path: "/some_numbers?val=eq.4", header: accept("unknown/unknown"), body: "anything\n4", match: ct("application/octet-stream", "")},
		{name: "media type parser fails/sends media type as is",
			path: "/items", header: accept("undefined"), status: http.StatusNotAcceptable, body: notAcceptable("undefined")},
		{name: "media type parser allowed characters/regression test allowing charset=utf-8", method: http.MethodPost,
			path: "/rpc/overloaded_default", reqBody: `{"must_param":1}`, header: []string{"Content-Type", "application/json; charset=utf-8"},
			body: `{"val": 1}`, match: ct(jsonCT, "")},
		{name: "media type parser allowed characters/handle unrecognized parameters leniently", method: http.MethodPost,
			path: "/rpc/overloaded_default", reqBody: `{"must_param":1}`, header: []string{"Content-Type", "application/json; $$ unrecognized-chars=ignored $$"},
			body: `{"val": 1}`, match: ct(jsonCT, "")},
	}))
	t.Run("using select query parameter/will fail for specific aggregate with other columns", func(t *testing.T) {
		for _, path := range []string{"/lines?select=id", "/lines?select=id,name,geom,id", "/lines?select=name,id,geom", "/lines?select=id,name,geom"} {
			if res := s.Get(t, path, "Accept", "application/vnd.twkb"); res.Status != http.StatusNotAcceptable {
				t.Errorf("%s: status %d, want 406", path, res.Status)
			}
		}
	})
	t.Run("any media type/on functions/accepts some media types if there's conditional logic, else 406", func(t *testing.T) {
		if res := s.Get(t, "/rpc/ret_some_mt", "Accept", "text/csv"); res.Status != http.StatusNotAcceptable {
			t.Errorf("status %d, want 406; body %s", res.Status, res.Body)
		}
	})
}

// TestPlanSpecCustomMediaTypes mirrors PlanSpec's "custom media types": a
// plan for a media type handler names it in its Content-Type, and its
// third output column is the body the handler renders (the text of the
// expression is pgrest's own, as the rest of its SQL).
func TestPlanSpecCustomMediaTypes(t *testing.T) {
	s := startSpecMediaServer(t, "db_plan_enabled true")
	for _, c := range []struct{ name, path, accept, contentType, output string }{
		{"outputs the plan for a scalar function text/xml", "/rpc/return_scalar_xml",
			`application/vnd.pgrst.plan+json; for="text/xml"; options=verbose`,
			`application/vnd.pgrst.plan+json; for="text/xml"; options=verbose; charset=utf-8`, `"text/xml"`},
		{"outputs the plan for an aggregate application/vnd.twkb", "/lines",
			`application/vnd.pgrst.plan+json; for="application/vnd.twkb"; options=verbose`,
			`application/vnd.pgrst.plan+json; for="application/vnd.twkb"; options=verbose; charset=utf-8`, "twkb_agg("},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := s.Get(t, c.path, "Accept", c.accept)
			res.ExpectStatus(t, http.StatusOK)
			expectHeader(t, res, "Content-Type", c.contentType)
			var plan []struct {
				Plan struct{ Output []string }
			}
			if err := json.Unmarshal(res.Body, &plan); err != nil || len(plan) != 1 || len(plan[0].Plan.Output) < 3 {
				t.Fatalf("plan %s (%v)", res.Body, err)
			}
			if out := plan[0].Plan.Output[2]; !strings.Contains(out, c.output) {
				t.Errorf("output %q, want it to render %q", out, c.output)
			}
		})
	}
	t.Run("a handler of other relations is 406 naming the plan", func(t *testing.T) {
		const accept = `application/vnd.pgrst.plan+json; for="text/xml"`
		checkFailure(t, s.Get(t, "/projects", "Accept", accept), failure{status: http.StatusNotAcceptable,
			code: "PGRST107", message: "None of these media types are available: " + accept})
	})
}

// TestRawOutputTypesSpec mirrors RawOutputTypesSpec: browsers' Accept
// headers get JSON, though the fixture has a text/html handler (of a
// function) and none of the types they list first is offered.
func TestRawOutputTypesSpec(t *testing.T) {
	s := startSpecMediaServer(t)
	const (
		firefox = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
		chrome  = "text/html,application/xhtml+xml,application/xml;q=0.9,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3"
	)
	jsonCT := map[string]string{"Content-Type": "application/json; charset=utf-8"}
	projects := `[{"id":1,"name":"Windows 7","client_id":1}, {"id":2,"name":"Windows 10","client_id":1}]`
	runSpecRequests(t, s, []specRequest{
		{name: "responds json to a GET request with Firefox Accept headers", path: "/items?id=eq.1",
			header: []string{"Accept", firefox}, body: `[{"id":1}]`, match: jsonCT},
		{name: "responds json to a GET request with Chrome Accept headers", path: "/items?id=eq.1",
			header: []string{"Accept", chrome}, body: `[{"id":1}]`, match: jsonCT},
		{name: "responds json to a GET request to RPC with Firefox Accept headers", path: "/rpc/get_projects_below?id=3",
			header: []string{"Accept", firefox}, body: projects, match: jsonCT},
		{name: "responds json to a GET request to RPC with Chrome Accept headers", path: "/rpc/get_projects_below?id=3",
			header: []string{"Accept", chrome}, body: projects, match: jsonCT},
	})
}
