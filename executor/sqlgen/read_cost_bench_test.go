package sqlgen_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
)

// readCostCases are the request shapes whose Go cost the benchmarks
// below measure piece by piece: the one-row read of the load benchmark,
// a page with order and limit, and an embed.
var readCostCases = []struct{ name, target string }{
	{"one_row", "/clients?id=eq.42"},
	{"page", "/tasks?select=id,name,done&order=id.desc&limit=25&offset=50"},
	{"embed", "/projects?select=id,name,clients(id,name)&id=gt.10&order=id"},
}

// BenchmarkReadCost measures turning a read's query string into SQL:
// ParseQuery, BuildRead and Read apart, then all three in a row.
//
//	go test -run '^$' -bench ReadCost -benchmem ./executor/sqlgen/
func BenchmarkReadCost(b *testing.B) {
	cache := schemacache.Build(goldenCatalog())
	for _, c := range readCostCases {
		path, rawQuery, _ := strings.Cut(c.target, "?")
		rel, ok := cache.Relation("api", strings.TrimPrefix(path, "/"))
		if !ok {
			b.Fatalf("no relation %s", path)
		}
		rep := apirequest.Representation{Media: apirequest.MediaJSON}
		// parseAndPlan is what a request does before its SQL is written.
		parseAndPlan := func() (*apirequest.Query, *plan.Read) {
			q, aerr := apirequest.ParseQuery(rawQuery)
			if aerr != nil {
				b.Fatal(aerr)
			}
			p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{})
			if aerr != nil {
				b.Fatal(aerr)
			}
			return q, p
		}
		q, p := parseAndPlan()
		b.Run(c.name+"/parse", func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b, processCPU())
			for b.Loop() {
				if _, aerr := apirequest.ParseQuery(rawQuery); aerr != nil {
					b.Fatal(aerr)
				}
			}
		})
		b.Run(c.name+"/plan", func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b, processCPU())
			for b.Loop() {
				if _, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{}); aerr != nil {
					b.Fatal(aerr)
				}
			}
		})
		b.Run(c.name+"/sqlgen", func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b, processCPU())
			for b.Loop() {
				sqlgen.Read(p, sqlgen.ReadOptions{Representation: rep})
			}
		})
		b.Run(c.name+"/all", func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b, processCPU())
			for b.Loop() {
				_, p := parseAndPlan()
				sqlgen.Read(p, sqlgen.ReadOptions{Representation: rep})
			}
		})
	}
}

// reportCPU reports the process's CPU time per iteration since cpu0:
// on a shared machine wall time also counts other processes' turns.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWriteAndCallCost measures the SQL of an insert returning its
// row and of a function call returning rows, after planning.
//
//	go test -run '^$' -bench WriteAndCallCost -benchmem ./executor/sqlgen/
func BenchmarkWriteAndCallCost(b *testing.B) {
	cache := schemacache.Build(goldenCatalog())
	rel, _ := cache.Relation("api", "clients")
	q, aerr := apirequest.ParseQuery("select=id,name")
	if aerr != nil {
		b.Fatal(aerr)
	}
	p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{})
	if aerr != nil {
		b.Fatal(aerr)
	}
	opts := sqlgen.ReadOptions{Representation: apirequest.Representation{Media: apirequest.MediaJSON}}
	m := plan.Mutation{Kind: plan.Insert, Relation: rel, Columns: []string{"id", "name"},
		Payload: []byte(`[{"id":1,"name":"x"}]`)}
	b.Run("insert", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, processCPU())
		for b.Loop() {
			sqlgen.Write(m, p, sqlgen.WriteOptions{ReadOptions: opts})
		}
	})
	text := schemacache.Param{Name: "t", Type: "text", TypeSchema: "pg_catalog", TypeName: "text"}
	call := plan.Call{Function: &schemacache.Function{Schema: "api", Name: "search_clients", Params: []schemacache.Param{text},
		Returns: schemacache.Return{Shape: schemacache.ReturnsComposite, Set: true, Type: "SETOF api.clients",
			RelationSchema: "api", RelationName: "clients"}},
		Given: []schemacache.Param{text}, Args: []byte(`{"t":"x"}`)}
	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, processCPU())
		for b.Loop() {
			sqlgen.CallRead(call, p, opts, false)
		}
	})
}
