package executor

import (
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// BenchmarkReadWithoutDatabase is the Go side of a read that does not
// wait for the database: everything Serve does for GET /items?... before
// and after the transaction (parsing, negotiation, planning, SQL, the
// settings statement, the statement names, the result row, the
// response), in the order read does it. Its cpu-ns/op and allocs/op are
// pgrest's own CPU per request, without pgx, Caddy and HTTP.
//
//	go test -run '^$' -bench WithoutDatabase -benchmem ./executor/
func BenchmarkReadWithoutDatabase(b *testing.B) {
	cache := schemacache.Build(&schemacache.Catalog{
		ServerVersionNum: 150000,
		Schemas:          []string{"api"},
		Relations: []*schemacache.Relation{{Schema: "api", Name: "items", Kind: schemacache.KindTable, Columns: []*schemacache.Column{
			{Name: "id", Type: "integer", Position: 1},
			{Name: "name", Type: "text", Position: 2},
			{Name: "price", Type: "numeric", Position: 3},
			{Name: "created_at", Type: "timestamp with time zone", Position: 4},
		}}},
		Keys: []schemacache.Key{{Table: schemacache.QualifiedName{Schema: "api", Name: "items"}, Constraint: "items_pkey",
			Primary: true, Columns: []string{"id"}}},
	})
	e := &Executor{cfg: Config{Schemas: []string{"api"}, MaxBodySize: DefaultMaxBodySize},
		searchPaths: searchPaths([]string{"api"}, nil)}
	id := jwtauth.Identity{Role: "webuser", ClaimsJSON: `{"exp":1893456000,"role":"webuser"}`, Authenticated: true}
	body := []byte(`[{"id":42,"name":"item 42","price":58.53,"created_at":"2024-01-01T11:54:00+00:00"}]`)

	for _, wl := range []struct{ name, target string }{
		{"items_eq", "/items?id=eq.42"},
		{"items_page", "/items?order=id&limit=25"},
	} {
		u, err := url.Parse("http://127.0.0.1" + wl.target)
		if err != nil {
			b.Fatal(err)
		}
		r := &http.Request{Method: http.MethodGet, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Host: "127.0.0.1", RequestURI: wl.target, Body: http.NoBody, Header: http.Header{
				"Authorization": {"Bearer x.y.z"},
				"Accept":        {"application/json"},
				"User-Agent":    {"pgrest-bench"},
			}}
		w := &discardWriter{header: http.Header{}}
		b.Run(wl.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				clear(w.header)
				if readWithoutDatabase(e, w, r, cache, id, body) != http.StatusOK {
					b.Fatal("not 200")
				}
			}
			// CPU time rather than wall time: on a shared machine the
			// wall clock also counts other processes' turns.
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// readWithoutDatabase is read's path with the transaction replaced by a
// result row made up front.
func readWithoutDatabase(e *Executor, w http.ResponseWriter, r *http.Request, cache *schemacache.Cache,
	id jwtauth.Identity, body []byte) int {
	req, aerr := apirequest.Parse(r, e.cfg.Schemas, e.cfg.MaxBodySize)
	if aerr != nil {
		panic(aerr)
	}
	rel, ok := cache.Relation(req.Schema, req.Name)
	if !ok {
		panic("no relation")
	}
	q, aerr := req.ParseQuery()
	if aerr != nil {
		panic(aerr)
	}
	p, rep, aerr := e.planRead(r, req, cache, rel, q)
	if aerr != nil {
		panic(aerr)
	}
	main, _ := sqlgen.Read(p, e.readOptions(req, rep))
	settings := e.settingsStatement(r, id, req.Schema, false, nil, nil)
	_ = cachedStatementName("", settings.SQL.String())
	_ = cachedStatementName(id.Role, main.SQL.String())
	out, err := resultOutput(&txResult{rows: [][][]byte{{nil, []byte("1"), body, nil, nil}}})
	if err != nil {
		panic(err)
	}
	out.contentType = rep.ContentType()
	out.preferenceApplied = appliedReadPreferences(req.Preferences, out.preferenceApplied)
	if err := rangeStatus(out, p.Range.Offset); err != nil {
		panic(err)
	}
	out.contentLocation = contentLocationOf(r, req)
	status, _ := out.write(w, r, "")
	return status
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// discardWriter is a ResponseWriter that keeps nothing but the header it
// is given.
type discardWriter struct{ header http.Header }

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
