// Package jwks tests jwt_secret given as the https:// URL of a JWKS: the
// key set is served over TLS by a second Caddy (tls internal), a separate
// process as an identity provider would be, and pgrest must follow its
// key rotation mid-traffic without a failed request.
package jwks

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// runAsCaddy makes the test binary run Caddy's command line instead of the
// tests: the identity provider's Caddy is this binary started again.
const runAsCaddy = "PGREST_JWKS_TEST_RUN_CADDY"

var (
	db *pgresttest.DB
	// provider is the identity provider's Caddy: the folder its JWKS is
	// served from, the URL of the JWKS and the provider's base URL.
	providerDir, jwksURL, providerURL string
	// providerLog is the provider's access log, one JSON line a request:
	// the tests count the fetches of a key set there.
	providerLog string
)

func TestMain(m *testing.M) {
	if os.Getenv(runAsCaddy) == "1" {
		caddycmd.Main()
		return
	}
	// The database first: MustSetUp exits on failure, which would leave
	// a provider already started running. Nothing in it verifies a
	// certificate, so SSL_CERT_FILE is still unread (startProvider).
	db = pgresttest.MustSetUp("pgrest_jwks", pgresttest.ReadFixture)
	stop, err := startProvider()
	if err != nil {
		db.Abort("starting the JWKS provider", err)
	}
	db.Run(m, stop)
}

// startProvider starts the provider's Caddy serving providerDir over HTTPS
// with a certificate of Caddy's own local CA, and makes this process trust
// that CA (SSL_CERT_FILE, read when Go first verifies a certificate, which
// nothing here has done yet).
//
// Beside the files, the provider serves what the attack tests need:
// /to-http/<path> redirects to <path> on a plain http:// site serving the
// same folder (where anyone on the way could swap the keys), /to-https/
// <path> to <path> on itself, and any <path> whose <path>.down exists
// answers 500.
func startProvider() (func(), error) {
	dir, err := os.MkdirTemp("", "pgrest-jwks-")
	if err != nil {
		return nil, err
	}
	providerDir = filepath.Join(dir, "www")
	if err := os.MkdirAll(providerDir, 0o755); err != nil {
		return nil, err
	}
	port, err := pgresttest.FreePort()
	if err != nil {
		return nil, err
	}
	plainPort, err := pgresttest.FreePort()
	if err != nil {
		return nil, err
	}
	providerURL = fmt.Sprintf("https://localhost:%d", port)
	jwksURL = providerURL + "/.well-known/jwks.json"
	providerLog = filepath.Join(dir, "access.log")
	caddyfile := fmt.Sprintf(`{
	admin off
	persist_config off
	skip_install_trust
}
https://localhost:%[1]d {
	tls internal
	log {
		output file %[3]s
		format json
	}
	header Cache-Control "max-age=300"
	root * %[2]s
	@toHTTP path_regexp toHTTP ^/to-http(/.*)$
	redir @toHTTP http://localhost:%[4]d{re.toHTTP.1}
	@toHTTPS path_regexp toHTTPS ^/to-https(/.*)$
	redir @toHTTPS https://localhost:%[1]d{re.toHTTPS.1}
	@down file {path}.down
	respond @down 500
	file_server
}
http://localhost:%[4]d {
	root * %[2]s
	file_server
}
`, port, providerDir, providerLog, plainPort)
	cfgPath := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cfgPath, []byte(caddyfile), 0o644); err != nil {
		return nil, err
	}
	var logs bytes.Buffer
	cmd := exec.Command(os.Args[0], "run", "--config", cfgPath, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), runAsCaddy+"=1",
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		os.RemoveAll(dir)
	}
	root := filepath.Join(dir, "data", "caddy", "pki", "authorities", "local", "root.crt")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(root); err == nil {
			// Serving: the certificate is issued on the first handshake.
			conn, err := tls.Dial("tcp", fmt.Sprintf("localhost:%d", port), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only waits for the listener
			if err == nil {
				conn.Close()
				break
			}
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("the provider's Caddy did not serve in 30s:\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := os.Setenv("SSL_CERT_FILE", root); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}
