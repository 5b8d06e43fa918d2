package sqlgen_test

import (
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
)

// TestMediaHandlerBody checks the body a media type handler or the GeoJSON
// builtin gives a read: the aggregate called on the rows (cast to the
// relation's row type for a relation's own handler), bytea in hex, and
// every name a quoted identifier, through the same safety checks as the
// golden cases.
func TestMediaHandlerBody(t *testing.T) {
	cache := schemacache.Build(goldenCatalog())
	rel, _ := cache.Relation("api", "clients")
	agg := schemacache.QualifiedName{Schema: "api", Name: "my agg"}
	tests := []struct {
		name string
		rep  apirequest.Representation
		want string
	}{
		{"a relation's handler takes its row type",
			apirequest.Representation{Media: apirequest.MediaHandler, Handler: &schemacache.MediaHandler{Function: agg, Aggregate: true,
				Target: schemacache.QualifiedName{Schema: "api", Name: "clients"}, MediaType: "text/html"}},
			`pg_catalog.format('%s', "api"."my agg"(_pgrst_t::"api"."clients")) as body`},
		{"an anyelement handler takes the row as it is",
			apirequest.Representation{Media: apirequest.MediaHandler, Handler: &schemacache.MediaHandler{Function: agg, Aggregate: true,
				MediaType: "text/plain"}},
			`pg_catalog.format('%s', "api"."my agg"(_pgrst_t)) as body`},
		{"bytes travel in hex",
			apirequest.Representation{Media: apirequest.MediaHandler, Handler: &schemacache.MediaHandler{Function: agg, Aggregate: true,
				MediaType: "image/png", Binary: true}},
			`coalesce(pg_catalog.encode(("api"."my agg"(_pgrst_t))::bytea, 'hex'), '') as body`},
		{"GeoJSON calls PostGIS where it is",
			apirequest.Representation{Media: apirequest.MediaGeoJSON, PostGISSchema: "gis"},
			`pg_catalog.json_build_object('type', 'FeatureCollection', 'features', ` +
				`coalesce(pg_catalog.json_agg("gis"."st_asgeojson"(_pgrst_t)::json), '[]'))::text as body`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, aerr := apirequest.ParseQuery("id=eq.1")
			if aerr != nil {
				t.Fatal(aerr.Message)
			}
			p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{})
			if aerr != nil {
				t.Fatal(aerr.Message)
			}
			main, _ := sqlgen.Read(p, sqlgen.ReadOptions{Representation: tt.rep})
			if !strings.Contains(main.SQL.String(), tt.want) {
				t.Errorf("SQL\n%s\nlacks\n%s", main.SQL, tt.want)
			}
		})
	}
}

// TestScalarHandlerBody checks a function's own media type: its one value
// is the body.
func TestScalarHandlerBody(t *testing.T) {
	fn := &schemacache.Function{Schema: "api", Name: "page", Returns: schemacache.Return{Shape: schemacache.ReturnsScalar}}
	for _, c := range []struct {
		binary bool
		want   string
	}{
		{false, `pg_catalog.format('%s', (pg_catalog.array_agg(_pgrst_t.pgrst_scalar))[1]) as body`},
		{true, `coalesce(pg_catalog.encode(((pg_catalog.array_agg(_pgrst_t.pgrst_scalar))[1])::bytea, 'hex'), '') as body`},
	} {
		st := sqlgen.CallFunction(plan.Call{Function: fn, Handler: &schemacache.MediaHandler{Function: schemacache.QualifiedName{Schema: "api", Name: "page"},
			Target: schemacache.QualifiedName{Schema: "api", Name: "page"}, MediaType: "text/html", Binary: c.binary}})
		if !strings.Contains(st.SQL.String(), c.want) {
			t.Errorf("SQL\n%s\nlacks\n%s", st.SQL, c.want)
		}
	}
}
