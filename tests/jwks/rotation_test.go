package jwks

import (
	"bufio"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
	"github.com/pgrest/caddy-pgrest/tests/pgresttest"
)

// signer is the provider's current signing key.
type signer struct {
	kid string
	key *rsa.PrivateKey
}

func newSigner(t *testing.T, kid string) signer {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return signer{kid: kid, key: k}
}

func (s signer) token(t *testing.T) string {
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"role": fixtures.UserRole, "sub": "user-1"})
	tok.Header["kid"] = s.kid
	signed, err := tok.SignedString(s.key)
	if err != nil {
		t.Error(err)
	}
	return signed
}

func (s signer) jwk() map[string]any {
	b64 := base64.RawURLEncoding.EncodeToString
	return map[string]any{
		"kty": "RSA", "kid": s.kid, "alg": "RS256", "use": "sig",
		"n": b64(s.key.PublicKey.N.Bytes()),
		"e": b64(big.NewInt(int64(s.key.PublicKey.E)).Bytes()),
	}
}

// publish makes the provider serve these keys from now on.
func publish(t *testing.T, keys ...signer) {
	t.Helper()
	set := map[string]any{"keys": []any{}}
	for _, k := range keys {
		set["keys"] = append(set["keys"].([]any), k.jwk())
	}
	body, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(providerDir, ".well-known", "jwks.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	// Written aside and renamed: the provider never serves half a file.
	if err := os.WriteFile(path+".new", body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
}

func TestKeyRotationMidTraffic(t *testing.T) {
	a, b := newSigner(t, "key-a"), newSigner(t, "key-b")
	publish(t, a)
	logPath := filepath.Join(t.TempDir(), "caddy.log")
	s, _, err := pgresttest.Serve(map[string]string{
		"db_uri":       pgresttest.Quote(db.DSNFor(fixtures.Authenticator, fixtures.AuthenticatorPassword)),
		"db_schemas":   "api",
		"db_anon_role": fixtures.AnonRole,
		"jwt_secret":   jwksURL,
	}, pgresttest.Options{LogFile: logPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pgresttest.Stop() })

	var current atomic.Pointer[signer]
	current.Store(&a)
	client := &http.Client{Timeout: 10 * time.Second}
	call := func() (int, string) {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/clients?select=id&id=eq.1", nil)
		req.Header.Set("Authorization", "Bearer "+current.Load().token(t))
		res, err := client.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, _ := call()
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pgrest never accepted a token of the published key: %d", code)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Traffic from four clients while the provider rotates as identity
	// providers do: publish b beside a, sign with b, withdraw a.
	var wg sync.WaitGroup
	var okCount, withB atomic.Int32
	var failures sync.Map
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				usingB := current.Load().kid == "key-b"
				code, body := call()
				if code != 200 {
					failures.Store(body, code)
					continue
				}
				okCount.Add(1)
				if usingB {
					withB.Add(1)
				}
			}
		}()
	}
	time.Sleep(time.Second)
	publish(t, a, b)
	current.Store(&b)
	time.Sleep(time.Second)
	publish(t, b)
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	failures.Range(func(body, code any) bool {
		t.Errorf("a request failed during the rotation: %v %v", code, body)
		return true
	})
	if withB.Load() == 0 || okCount.Load() < 20 {
		t.Fatalf("%d requests, %d with the new key: too few to show anything", okCount.Load(), withB.Load())
	}
	t.Logf("%d requests during the rotation, %d signed with the new key, none failed", okCount.Load(), withB.Load())

	// The provider fails: the keys fetched last stay in use, and the
	// failure is logged.
	if err := os.Remove(filepath.Join(providerDir, ".well-known", "jwks.json")); err != nil {
		t.Fatal(err)
	}
	// A token with a new kid makes pgrest fetch (once the rate limit of
	// unknown kids allows: within 5 s of b's).
	c := newSigner(t, "key-c")
	deadline = time.Now().Add(15 * time.Second)
	for !logHas(t, logPath, "fetching the JWKS; the last keys fetched stay in use", "404") {
		if time.Now().After(deadline) {
			t.Fatal("the failed fetch is not logged as an error naming the 404")
		}
		current.Store(&c)
		if code, _ := call(); code != 401 {
			t.Fatalf("a token of an unpublished key = %d, want 401", code)
		}
		time.Sleep(250 * time.Millisecond)
	}
	current.Store(&b)
	if code, body := call(); code != 200 {
		t.Errorf("with the provider failing, a token of the last fetched key = %d %s, want 200", code, body)
	}
}

func logHas(t *testing.T, path, msg, detail string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l map[string]any
		if json.Unmarshal(sc.Bytes(), &l) == nil && l["msg"] == msg && l["level"] == "error" &&
			strings.Contains(l["error"].(string), detail) {
			return true
		}
	}
	return false
}
