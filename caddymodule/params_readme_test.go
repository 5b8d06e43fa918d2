package caddymodule

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/dustin/go-humanize"
)

// updateREADME rewrites README.md's parameter tables from params
// (go generate ./caddymodule runs it).
var updateREADME = flag.Bool("update-readme", false, "rewrite README.md's parameter tables from the table in params.go")

// The README's generated tables sit between these lines.
const (
	readmeParamsBegin = "<!-- parameters: generated from caddymodule/params.go by `go generate ./caddymodule`; do not edit -->"
	readmeParamsEnd   = "<!-- end of parameters -->"
	readmeCaddyBegin  = "<!-- Caddy's parameters: generated from caddymodule/params.go by `go generate ./caddymodule`; do not edit -->"
	readmeCaddyEnd    = "<!-- end of Caddy's parameters -->"
)

// readmeParamsTable is the README's table of the parameters pgrest reads.
func readmeParamsTable() string {
	var b strings.Builder
	b.WriteString("| subdirective | aliases | default | db | meaning |\n|---|---|---|---|---|\n")
	for _, p := range params {
		if p.caddy != "" {
			continue
		}
		name := "`" + p.name + "`"
		if p.pgrest {
			name += " (pgrest)"
		}
		aliases := make([]string, len(p.aliases))
		for i, a := range p.aliases {
			aliases[i] = "`" + a + "`"
		}
		db := ""
		if p.db {
			db = "db"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", name, strings.Join(aliases, ", "), cell(defaultText(&p)), db, cell(meaning(&p)))
	}
	return b.String()
}

// meaning is p's doc, with the values enum allows.
func meaning(p *param) string {
	if len(p.enum) == 0 {
		return p.doc
	}
	values := make([]string, len(p.enum))
	for i, v := range p.enum {
		values[i] = "`" + v + "`"
	}
	return strings.Join(values, ", ") + ": " + p.doc
}

// readmeCaddyTable is the README's table of the parameters Caddy owns.
func readmeCaddyTable() string {
	var b strings.Builder
	b.WriteString("| PostgREST parameter | refused with |\n|---|---|\n")
	for _, p := range params {
		if p.caddy != "" {
			fmt.Fprintf(&b, "| `%s` | %s |\n", p.name, cell(p.caddy))
		}
	}
	return b.String()
}

// cell escapes the bars of a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// defaultText is p's default as the README writes it.
func defaultText(p *param) string {
	if p.defDoc != "" {
		return p.defDoc
	}
	switch d := p.def.(type) {
	case nil:
		return ""
	case caddy.Duration:
		s := time.Duration(d).String()
		if strings.HasSuffix(s, "m0s") {
			s = strings.TrimSuffix(s, "0s")
		}
		return "`" + s + "`"
	case int64:
		return "`" + strings.ReplaceAll(humanize.IBytes(uint64(d)), " ", "") + "`"
	case []string:
		return "`" + strings.Join(d, ", ") + "`"
	default:
		return fmt.Sprintf("`%v`", d)
	}
}

// replaceBetween replaces what lies between the lines begin and end.
func replaceBetween(doc, begin, end, body string) (string, error) {
	i := strings.Index(doc, begin+"\n")
	j := strings.Index(doc, "\n"+end)
	if i < 0 || j < i {
		return "", fmt.Errorf("README.md lacks the lines %q and %q", begin, end)
	}
	return doc[:i+len(begin)+1] + body + doc[j+1:], nil
}

// TestREADMEParameterTable checks that README.md's parameter tables are
// those the table in params.go makes, so the two cannot drift apart.
func TestREADMEParameterTable(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := replaceBetween(string(raw), readmeParamsBegin, readmeParamsEnd, readmeParamsTable())
	if err == nil {
		doc, err = replaceBetween(doc, readmeCaddyBegin, readmeCaddyEnd, readmeCaddyTable())
	}
	if err != nil {
		t.Fatal(err)
	}
	if *updateREADME {
		if err := os.WriteFile("../README.md", []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != string(raw) {
		t.Error("README.md's parameter tables differ from params.go: run go generate ./caddymodule")
	}
}
