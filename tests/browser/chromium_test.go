package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// moduleRoot is the pgrest module's folder.
func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := pgtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

var (
	chromiumOnce sync.Once
	chromiumPath string
	chromiumErr  error
)

// chromium is the Chromium binary, installed by scripts/browser.sh when
// the machine has none. A machine that cannot get one fails the test: the
// browser tests are part of make test, not optional.
func chromium(t testing.TB) string {
	t.Helper()
	chromiumOnce.Do(func() {
		script := filepath.Join(moduleRoot(t), "scripts", "browser.sh")
		if out, err := exec.Command("bash", script, "ensure").CombinedOutput(); err != nil {
			chromiumErr = &commandError{"bash scripts/browser.sh ensure", err, out}
			return
		}
		out, err := exec.Command("bash", script, "path").Output()
		if err != nil {
			chromiumErr = &commandError{"bash scripts/browser.sh path", err, out}
			return
		}
		chromiumPath = strings.TrimSpace(string(out))
	})
	if chromiumErr != nil {
		t.Fatal(chromiumErr)
	}
	return chromiumPath
}

type commandError struct {
	cmd string
	err error
	out []byte
}

func (e *commandError) Error() string { return e.cmd + ": " + e.err.Error() + "\n" + string(e.out) }

var assetsOnce sync.Once

// The browser builds of the client libraries, in tests/supabasejs's
// node_modules: postgrest-js's ES module (self-contained) and supabase-js's
// UMD bundle, which defines the global supabase.
var (
	postgrestModule = filepath.FromSlash("tests/supabasejs/node_modules/@supabase/postgrest-js/dist/index.mjs")
	supabaseUMD     = filepath.FromSlash("tests/supabasejs/node_modules/@supabase/supabase-js/dist/umd/supabase.js")
)

// clientAssets makes sure the client libraries are installed, running
// npm ci in tests/supabasejs when they are not.
func clientAssets(t testing.TB) {
	t.Helper()
	root := moduleRoot(t)
	var err error
	assetsOnce.Do(func() {
		if fileExists(filepath.Join(root, postgrestModule)) && fileExists(filepath.Join(root, supabaseUMD)) {
			return
		}
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = filepath.Join(root, "tests", "supabasejs")
		if out, e := cmd.CombinedOutput(); e != nil {
			err = &commandError{"npm ci in tests/supabasejs", e, out}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{postgrestModule, supabaseUMD} {
		if !fileExists(filepath.Join(root, f)) {
			t.Fatalf("%s is missing after npm ci in tests/supabasejs", f)
		}
	}
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// pageServer serves the test pages and the client libraries on a loopback
// port of its own: an origin other than pgrest's. It stops when the test
// ends.
func pageServer(t testing.TB) *pages {
	t.Helper()
	clientAssets(t)
	root := moduleRoot(t)
	files := map[string]struct{ path, contentType string }{
		"/calls.html":    {filepath.Join("testdata", "calls.html"), "text/html; charset=utf-8"},
		"/realtime.html": {filepath.Join("testdata", "realtime.html"), "text/html; charset=utf-8"},
		"/postgrest.mjs": {filepath.Join(root, postgrestModule), "text/javascript; charset=utf-8"},
		"/supabase.js":   {filepath.Join(root, supabaseUMD), "text/javascript; charset=utf-8"},
	}
	p := &pages{reports: make(chan []byte, 64)}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/report" && r.Method == http.MethodPost {
			body, err := io.ReadAll(r.Body)
			if err == nil {
				select {
				case p.reports <- body:
				default: // nobody reads: the test has ended
				}
			}
			return
		}
		f, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		body, err := os.ReadFile(f.path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", f.contentType)
		_, _ = w.Write(body)
	}))
	t.Cleanup(p.Close)
	return p
}

// pages is the test pages' server. A page that waits on a WebSocket
// posts what it has to /report after each step, and {"done":true,...}
// at its end, for visitReported.
type pages struct {
	*httptest.Server
	reports chan []byte
}

// callResult is what one call of the page got: postgrest-js's response
// (status 0 and an error when the fetch itself failed), or what it threw.
type callResult struct {
	Status int             `json:"status"`
	Data   json.RawMessage `json:"data"`
	Count  *int            `json:"count"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Thrown string `json:"thrown"`
}

var resultPre = regexp.MustCompile(`(?s)<pre id="result" data-done="true">(.*?)</pre>`)

// visit loads pageURL in headless Chromium, lets its calls finish and
// returns the results the page wrote. Chromium runs with a profile of its
// own, and without its sandbox when we are root, where it refuses to start
// otherwise.
func visit(t testing.TB, pageURL string) map[string]callResult {
	t.Helper()
	var results map[string]callResult
	visitInto(t, pageURL, &results)
	return results
}

// visitInto is visit for a page whose results have a shape of their own.
func visitInto(t testing.TB, pageURL string, results any) {
	t.Helper()
	// The machine may be busy: starting Chromium alone can take seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{
		"--headless", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--no-default-browser-check", "--disable-extensions",
		"--user-data-dir=" + t.TempDir(),
		// Virtual time waits while fetches are pending, so the page's calls
		// all finish before the DOM is dumped.
		"--virtual-time-budget=30000",
		"--dump-dom", pageURL,
	}
	if os.Geteuid() == 0 {
		args = append([]string{"--no-sandbox"}, args...)
	}
	cmd := exec.CommandContext(ctx, chromium(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(stderr.String(), 30))
	}
	m := resultPre.FindSubmatch(stdout.Bytes())
	if m == nil {
		t.Fatalf("the page did not finish its calls; DOM:\n%s\nchromium's log:\n%s", stdout.String(), tail(stderr.String(), 30))
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), results); err != nil {
		t.Fatalf("the page's results: %v\n%s", err, m[1])
	}
}

// visitReported opens pageURL, a page of p that reports its results to
// /report, in headless Chromium running in real time, and waits for the
// report marked done. Unlike visitInto it does not dump the DOM under a
// virtual time budget: virtual time does not wait for WebSockets, and a
// page kept from running ahead with a pending fetch also keeps its
// timers (the clients' heartbeats and retries) from firing at all.
func visitReported(t testing.TB, p *pages, pageURL string, results any) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	args := []string{
		"--headless", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--no-default-browser-check", "--disable-extensions",
		"--user-data-dir=" + t.TempDir(),
		// Without a page to dump, headless Chromium runs until stopped.
		"--remote-debugging-port=0",
		pageURL,
	}
	if os.Geteuid() == 0 {
		args = append([]string{"--no-sandbox"}, args...)
	}
	cmd := exec.CommandContext(ctx, chromium(t), args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() { cancel(); <-exited }()
	// The machine may be busy: starting Chromium alone can take seconds.
	deadline := time.After(3 * time.Minute)
	var last []byte
	for {
		select {
		case body := <-p.reports:
			last = body
			var mark struct {
				Done bool `json:"done"`
			}
			if err := json.Unmarshal(body, &mark); err != nil {
				t.Fatalf("the page's report: %v\n%s", err, body)
			}
			if !mark.Done {
				continue
			}
			if err := json.Unmarshal(body, results); err != nil {
				t.Fatalf("the page's results: %v\n%s", err, body)
			}
			return
		case err := <-exited:
			exited <- err
			t.Fatalf("chromium ended before the page was done (%v); its last report: %s\nchromium's log:\n%s", err, last, tail(stderr.String(), 30))
		case <-deadline:
			t.Fatalf("the page was not done in 3 minutes; its last report: %s\nchromium's log:\n%s", last, tail(stderr.String(), 30))
		}
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
