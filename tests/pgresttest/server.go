// Package pgresttest serves pgrest from a real Caddy config for pgrest's
// HTTP tests and the programs under tests: a Caddyfile with a pgrest
// handler, adapted and loaded as a user's would be, on a free loopback
// port; requests to it and the checks of the error contract on their
// responses; HS256 tokens; and a TestMain that loads SQL fixtures into a
// fresh database of a throwaway cluster (tests/pgtest).
//
// Each package keeps its own defaults (exposed schemas, anonymous role,
// secret) and passes them to Start:
//
//	s := pgresttest.Start(t, map[string]string{
//		"db_uri":       authDSN,
//		"db_schemas":   "api",
//		"db_anon_role": "web_anon",
//	}, "db_max_rows 10")
//	res := s.Get(t, "/items")
//	res.ExpectError(t, 404, "PGRST205")
//
// Caddy runs one config at a time: starting a server stops the one
// running, so tests using this package do not run in parallel. Functions
// taking a testing.TB fail it; those for programs return errors.
package pgresttest

import (
	"fmt"
	"net"
	"sort"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	_ "github.com/caddyserver/caddy/v2/modules/standard" // the http app and its Caddyfile adapter
	_ "github.com/pgrest/caddy-pgrest/caddymodule"       // the pgrest handler
)

// Server is a running Caddy whose one site is pgrest.
type Server struct {
	// URL is the site's base URL, http://127.0.0.1:<port>.
	URL string
	// Caddyfile is the config Caddy was loaded from.
	Caddyfile string
}

// Options are a server's settings beyond its pgrest subdirectives.
type Options struct {
	// LogFile, when set, is where Caddy's log and the site's access log
	// go instead of the standard error.
	LogFile string
	// LogLevel, when set, is the level of Caddy's log (e.g. "ERROR").
	LogLevel string
	// Mount, when set, is a path such as "/rest/v1" that pgrest serves
	// under, the prefix stripped (handle_path <Mount>/*), as Supabase lays
	// it out. The server's URL stays the site's.
	Mount string
	// Sites, when set, is Caddyfile text appended after pgrest's site:
	// more site blocks served by the same Caddy (tests/bench serves its
	// baseline handler there, beside pgrest).
	Sites string
	// Admin, when set, is the address Caddy's admin endpoint listens on,
	// such as 127.0.0.1:2999 (the admin API and pgrest's endpoints in
	// it); unset, the endpoint is off.
	Admin string
}

// Directives returns a copy of base with lines applied: a line "name
// value" (a subdirective line, "db_max_rows 10") sets name, replacing
// base's; "-name" removes name.
func Directives(base map[string]string, lines ...string) map[string]string {
	dirs := make(map[string]string, len(base)+len(lines))
	for n, v := range base {
		dirs[n] = v
	}
	for _, l := range lines {
		if name, ok := strings.CutPrefix(l, "-"); ok {
			delete(dirs, name)
			continue
		}
		name, value, _ := strings.Cut(l, " ")
		dirs[name] = value
	}
	return dirs
}

// caddyfile is the Caddyfile serving pgrest with the subdirectives dirs
// (name to the rest of the line, written in name order) on
// http://127.0.0.1:port, with automatic HTTPS and config persistence off,
// and the admin endpoint off unless opts.Admin says where it listens.
func caddyfile(port int, dirs map[string]string, opts Options) string {
	admin := "off"
	if opts.Admin != "" {
		admin = opts.Admin
	}
	var global, site strings.Builder
	if opts.LogFile != "" || opts.LogLevel != "" {
		global.WriteString("\tlog {\n")
		if opts.LogFile != "" {
			fmt.Fprintf(&global, "\t\toutput file %s\n", Quote(opts.LogFile))
			fmt.Fprintf(&site, "\tlog {\n\t\toutput file %s\n\t}\n", Quote(opts.LogFile))
		}
		if opts.LogLevel != "" {
			fmt.Fprintf(&global, "\t\tlevel %s\n", opts.LogLevel)
		}
		global.WriteString("\t}\n")
	}
	handler := handlerBlock(dirs, opts.Mount)
	return fmt.Sprintf("{\n\tadmin %s\n\tauto_https off\n\tpersist_config off\n%s}\n"+
		"http://127.0.0.1:%d {\n%s%s}\n%s", admin, global.String(), port, site.String(), handler, opts.Sites)
}

// handlerBlock is the site's pgrest handler with the subdirectives dirs,
// under mount when set.
func handlerBlock(dirs map[string]string, mount string) string {
	names := make([]string, 0, len(dirs))
	for n := range dirs {
		names = append(names, n)
	}
	sort.Strings(names)
	var pgrest strings.Builder
	for _, n := range names {
		fmt.Fprintf(&pgrest, "\t\t%s %s\n", n, dirs[n])
	}
	handler := fmt.Sprintf("\tpgrest {\n%s\t}\n", pgrest.String())
	nested := strings.ReplaceAll(strings.TrimSuffix(handler, "\n"), "\n", "\n\t")
	switch {
	case mount != "" && dirs["realtime_enabled"] == "true":
		// Supabase's layout: REST under the mount, the realtime socket
		// at /realtime/v1/websocket, both served by one pgrest handler
		// (one pool, one verifier).
		return fmt.Sprintf("\t@pgrest path %s/* /realtime/v1/*\n\thandle @pgrest {\n\t\turi strip_prefix %s\n\t%s\n\t}\n",
			mount, mount, nested)
	case mount != "":
		// One tab deeper inside handle_path, as caddy fmt writes it.
		return fmt.Sprintf("\thandle_path %s/* {\n\t%s\n\t}\n", mount, nested)
	}
	return handler
}

// Site is a site block serving pgrest with dirs on http://127.0.0.1:port,
// under mount when set, for Options.Sites: a second node in the same
// Caddy.
func Site(port int, dirs map[string]string, mount string) string {
	return fmt.Sprintf("http://127.0.0.1:%d {\n%s}\n", port, handlerBlock(dirs, mount))
}

// Caddyfile is the Caddyfile Serve would load for dirs on port, for a
// program that runs Caddy in a process of its own (caddy run --config).
func Caddyfile(port int, dirs map[string]string, opts Options) string {
	return caddyfile(port, dirs, opts)
}

// Quote makes v one Caddyfile token: backquoted when it holds spaces,
// tabs or double quotes (a keyword/value DSN, a path), as is otherwise.
func Quote(v string) string {
	if !strings.ContainsAny(v, " \t\"") {
		return v
	}
	return "`" + v + "`"
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Serve adapts the Caddyfile serving pgrest with dirs on a free loopback
// port and loads it, replacing any config Caddy runs. It returns the
// server and the adapter's warnings; an error holds the Caddyfile. Stop
// stops the server.
func Serve(dirs map[string]string, opts Options) (*Server, []string, error) {
	dirs, err := throughPgBouncer(dirs)
	if err != nil {
		return nil, nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, nil, err
	}
	text := caddyfile(port, dirs, opts)
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(text), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("adapting the Caddyfile: %w\n%s", err, text)
	}
	msgs := make([]string, len(warnings))
	for i, w := range warnings {
		msgs[i] = w.Message
	}
	if err := caddy.Load(cfg, true); err != nil {
		return nil, msgs, fmt.Errorf("loading the Caddy config: %w\n%s", err, text)
	}
	return &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Caddyfile: text}, msgs, nil
}

// Stop stops the config Caddy runs.
func Stop() error { return caddy.Stop() }

// Start is StartWith for base's subdirectives with lines applied (see
// Directives) and no Options.
func Start(t testing.TB, base map[string]string, lines ...string) *Server {
	t.Helper()
	return StartWith(t, Directives(base, lines...), Options{})
}

// StartWith is Serve for a test: it logs the adapter's warnings, and the
// server stops when the test ends. Starting a server stops the one
// running, so start one per top-level test.
func StartWith(t testing.TB, dirs map[string]string, opts Options) *Server {
	t.Helper()
	s, warnings, err := Serve(dirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warnings {
		t.Logf("caddyfile warning: %s", w)
	}
	t.Cleanup(func() {
		if err := Stop(); err != nil {
			t.Errorf("stopping Caddy: %v", err)
		}
	})
	return s
}
