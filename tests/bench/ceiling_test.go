package main

import (
	"bytes"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// A route site adapts with the workload's body as it is (JSON with braces
// and new lines) and the status alone for an empty body; a body Caddy
// could not quote is refused.
func TestRouteSitesAdaptWithTheBodies(t *testing.T) {
	read := &workload{name: "r", method: "GET", path: "/items", status: 200, body: []byte("[{\"id\":1}, \n {\"id\":2}]")}
	write := &workload{name: "w", method: "POST", path: "/item_log", status: 201}
	sites, urls, err := routeSites([]*workload{read, write})
	if err != nil {
		t.Fatal(err)
	}
	if len(urls) != 2 {
		t.Errorf("urls: %v", urls)
	}
	text := pgresttest.Caddyfile(8001, pgrestDirectives("postgres://a@127.0.0.1/db", 10), pgresttest.Options{Sites: sites})
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(text), nil)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("%v %v\n%s", err, warnings, text)
	}
	if !bytes.Contains(cfg, []byte(`"body":"[{\"id\":1}, \n {\"id\":2}]"`)) {
		t.Errorf("the read's body is not served as it is:\n%s", cfg)
	}
	if _, _, err := routeSites([]*workload{{name: "q", method: "GET", path: "/x", status: 200, body: []byte("`")}}); err == nil {
		t.Error("a body with a backquote was accepted")
	}
}

// The ceiling adds the costs per request: 1/(1/H+1/D).
func TestCeilingAddsTheCostsPerRequest(t *testing.T) {
	if got := ceilingOf(10000, 10000); got != 5000 {
		t.Errorf("ceilingOf(10000, 10000) = %v", got)
	}
	if got := ceilingOf(0, 10000); got != 0 {
		t.Errorf("ceilingOf(0, 10000) = %v", got)
	}
}
