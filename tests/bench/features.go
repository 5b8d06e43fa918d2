package main

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// -diag-features measures what a feature a user turns on, or a request
// that uses it, costs the one-row read and every other workload: pgrest
// with the feature, in a site of its own in the same Caddy config, beside
// pgrest without it, in the same windows. Each is a variant named
// pgrest:<feature>:
//
//   - log: Caddy's access log (to discard), with the fields pgrest adds
//     to each entry (the outcome, the role, the SQL state);
//   - timing: server_timing_enabled, the Server-Timing header;
//   - cors: requests with an Origin header, which pgrest answers with
//     CORS's headers (any origin, PostgREST's default);
//   - tz: requests with Prefer: timezone=UTC, set for the transaction
//     (the zone the server already has, so that timestamps read the same
//     and the body can be checked as pgrest's);
//   - rolesettings: a token of a role with settings of its own (ALTER
//     ROLE … SET), which pgrest applies in each of its transactions.
//
// pgrest's metrics are counters kept whatever the configuration: there is
// nothing to turn off; Caddy's own request metrics are a global option,
// which would reach every variant of the config.
type feature struct {
	name string
	// site holds the site's lines beside the pgrest block; directives
	// the pgrest block's lines beyond the bench's.
	site, directives []string
	// header holds the headers its requests add to the workload's.
	header http.Header
	// role, when set, is the role of the token its requests send.
	role string
}

// featureRole is the role of the rolesettings variant's token: webuser's
// privileges, with settings of its own (fixtureSQL).
const featureRole = "webuser_settings"

var features = []feature{
	{name: "log", site: []string{"log {\n\t\toutput discard\n\t}"}},
	{name: "timing", directives: []string{"server_timing_enabled true"}},
	{name: "cors", header: http.Header{"Origin": {"https://app.example.com"}}},
	{name: "tz", header: http.Header{"Prefer": {"timezone=UTC"}}},
	{name: "rolesettings", role: featureRole},
}

func featureName(f feature) string { return "pgrest:" + f.name }

// featureSites writes a site per feature and returns the sites' text,
// their base URLs and the headers their requests add, by variant name.
func featureSites(authDSN string, pool int) (string, map[string]string, map[string]http.Header, error) {
	var b bytes.Buffer
	urls, headers := map[string]string{}, map[string]http.Header{}
	for _, f := range features {
		port, err := pgresttest.FreePort()
		if err != nil {
			return "", nil, nil, err
		}
		fmt.Fprintf(&b, "http://127.0.0.1:%d {\n", port)
		for _, line := range f.site {
			fmt.Fprintf(&b, "\t%s\n", line)
		}
		b.WriteString("\tpgrest {\n")
		for _, line := range append(sortedDirectives(pgrestDirectives(authDSN, pool)), f.directives...) {
			fmt.Fprintf(&b, "\t\t%s\n", line)
		}
		b.WriteString("\t}\n}\n")
		name := featureName(f)
		urls[name] = fmt.Sprintf("http://127.0.0.1:%d", port)
		h := f.header.Clone()
		if f.role != "" {
			token, err := pgresttest.SignHS256(jwtSecret, jwt.MapClaims{"role": f.role,
				"exp": time.Now().Add(24 * time.Hour).Unix()})
			if err != nil {
				return "", nil, nil, err
			}
			if h == nil {
				h = http.Header{}
			}
			h.Set("Authorization", "Bearer "+token)
		}
		headers[name] = h
	}
	return b.String(), urls, headers, nil
}

// printFeatures sets each feature's variant against pgrest without it,
// cell by cell: throughput and p50 ÷ pgrest's, and the CPU per request
// it adds, in the server's process and in PostgreSQL.
func printFeatures(variants []*variant, rows []*cell, dbWhyNot string) {
	if indexOrNone(variants, featureName(features[0])) < 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %4s ", "workload", "conc")
	for _, f := range features {
		fmt.Fprintf(&b, " %-34s", featureName(f)+" ÷ pgrest")
	}
	fmt.Println(b.String())
	for _, r := range rows {
		b.Reset()
		fmt.Fprintf(&b, "%-11s %4d ", r.workload, r.conc)
		for _, f := range features {
			i := indexOf(variants, featureName(f))
			cpu := fmt.Sprintf("%+.1f", float64(r.serverCPU[i]-r.serverCPU[0])/float64(time.Microsecond))
			if dbWhyNot == "" {
				cpu += fmt.Sprintf("/%+.1f", float64(r.dbCPU[i]-r.dbCPU[0])/float64(time.Microsecond))
			}
			fmt.Fprintf(&b, " %-34s", fmt.Sprintf("rate %.3f p50 %.2f %sµs", r.rate[i]/max(r.rate[0], 1),
				float64(r.p50s[i])/float64(max(r.p50s[0], 1)), cpu))
		}
		fmt.Println(b.String())
	}
	fmt.Println(strings.TrimSpace(`
Features: pgrest with one feature on (pgrest:log Caddy's access log with pgrest's fields, :timing
Server-Timing, :cors requests with an Origin, :tz requests with Prefer: timezone, :rolesettings a role
with ALTER ROLE settings), over pgrest without it, in the same windows; µs: the CPU per request it adds
in the server's process / in PostgreSQL (differences of figures near 150 µs: read them over runs).`))
}
