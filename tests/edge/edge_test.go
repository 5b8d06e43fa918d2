// Package edge tests pgrest behind Caddy's edge as a production site runs
// it: HTTPS with a certificate of Caddy's local CA (tls internal), mounted
// under /rest/v1 with handle_path as Supabase lays it out, compressed by
// encode, and served over HTTP/1.1, HTTP/2 and HTTP/3.
package edge

import (
	"compress/gzip"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/golang-jwt/jwt/v5"
	"github.com/quic-go/quic-go/http3"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

var db *pgresttest.DB

const jwtSecret = "an-edge-test-secret-of-at-least-32-characters"

func TestMain(m *testing.M) {
	db = pgresttest.MustSetUp("pgrest_edge", pgresttest.ReadFixture)
	db.Run(m)
}

// startEdge loads the site and returns its base URL and a pool trusting
// the site's local CA.
func startEdge(t *testing.T) (string, *x509.CertPool) {
	t.Helper()
	storage := t.TempDir()
	httpPort, err := pgresttest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	httpsPort, err := pgresttest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	caddyfile := fmt.Sprintf(`{
	admin off
	persist_config off
	skip_install_trust
	storage file_system %s
	http_port %d
	https_port %d
	servers {
		protocols h1 h2 h3
	}
}
https://localhost:%d {
	tls internal
	encode gzip
	handle_path /rest/v1/* {
		pgrest {
			db_uri %s
			db_schemas api
			db_anon_role web_anon
			jwt_secret %s
		}
	}
}
`, storage, httpPort, httpsPort, httpsPort,
		pgresttest.Quote(db.DSNFor(fixtures.Authenticator, fixtures.AuthenticatorPassword)), jwtSecret)
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
	if err != nil {
		t.Fatalf("adapting: %v\n%s", err, caddyfile)
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatalf("loading: %v\n%s", err, caddyfile)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	root := filepath.Join(storage, "pki", "authorities", "local", "root.crt")
	var pem []byte
	deadline := time.Now().Add(30 * time.Second)
	for pem == nil {
		if pem, err = os.ReadFile(root); err != nil {
			if time.Now().After(deadline) {
				t.Fatalf("Caddy's local CA root never appeared at %s", root)
			}
			pem = nil
			time.Sleep(50 * time.Millisecond)
		}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("the local CA root does not parse")
	}
	return fmt.Sprintf("https://localhost:%d", httpsPort), pool
}

func TestTokenRequestOverEveryHTTPVersion(t *testing.T) {
	base, roots := startEdge(t)
	tlsConf := &tls.Config{RootCAs: roots, ServerName: "localhost", MinVersion: tls.VersionTLS12}
	token := pgresttest.Token(t, jwtSecret, jwt.MapClaims{"role": fixtures.UserRole})

	h1 := &http.Transport{TLSClientConfig: tlsConf.Clone(), TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}
	h2 := &http.Transport{TLSClientConfig: tlsConf.Clone(), ForceAttemptHTTP2: true}
	h3 := &http3.Transport{TLSClientConfig: tlsConf.Clone()}
	t.Cleanup(func() { h1.CloseIdleConnections(); h2.CloseIdleConnections(); _ = h3.Close() })

	for _, c := range []struct {
		proto     string
		transport http.RoundTripper
	}{{"HTTP/1.1", h1}, {"HTTP/2.0", h2}, {"HTTP/3.0", h3}} {
		t.Run(c.proto, func(t *testing.T) {
			client := &http.Client{Transport: c.transport, Timeout: 30 * time.Second}
			var res *http.Response
			// The certificate is issued on the first handshake; the
			// schema cache loads in the background.
			deadline := time.Now().Add(30 * time.Second)
			for {
				req, _ := http.NewRequest(http.MethodGet, base+"/rest/v1/tasks?select=id,title,status&order=id", nil)
				req.Header.Set("Authorization", "Bearer "+token)
				// Set by hand, so the transport hands over the body as
				// sent instead of decompressing it quietly.
				req.Header.Set("Accept-Encoding", "gzip")
				var err error
				res, err = client.Do(req)
				if err == nil && res.StatusCode == 200 {
					break
				}
				if err == nil {
					res.Body.Close()
				}
				if time.Now().After(deadline) {
					t.Fatalf("no 200 over %s within 30s: %v", c.proto, err)
				}
				time.Sleep(200 * time.Millisecond)
			}
			defer res.Body.Close()
			if res.Proto != c.proto {
				t.Errorf("served over %s, want %s", res.Proto, c.proto)
			}
			if res.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("Content-Encoding = %q, want gzip from encode", res.Header.Get("Content-Encoding"))
			}
			if c.proto != "HTTP/3.0" && res.Header.Get("Alt-Svc") == "" {
				t.Error("no Alt-Svc header advertising HTTP/3")
			}
			zr, err := gzip.NewReader(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			var rows []map[string]any
			if err := json.Unmarshal(body, &rows); err != nil {
				t.Fatalf("the body is not the JSON rows: %v\n%.200s", err, body)
			}
			want := pgresttest.SQLInt(t, db.SuperDSN, "select count(*) from api.tasks")
			if int64(len(rows)) != want || rows[0]["id"] != float64(1) {
				t.Errorf("%d rows (first %v), want %d from id 1", len(rows), rows[0], want)
			}
		})
	}
}
