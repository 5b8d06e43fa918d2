package ops

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/fixtures"
)

func TestAdminAPI(t *testing.T) {
	s := startReadySite(t, "app_settings app.settings.api_key=sk-very-secret-value")

	t.Run("ready", func(t *testing.T) {
		code, body := get(t, http.MethodGet, s.Admin+"/pgrest/ready")
		var got []map[string]any
		if err := json.Unmarshal([]byte(body), &got); err != nil || code != 200 {
			t.Fatalf("/pgrest/ready = %d %s (%v)", code, body, err)
		}
		if len(got) != 1 || got[0]["ready"] != true {
			t.Fatalf("/pgrest/ready = %s, want one ready handler", body)
		}
	})

	t.Run("config, secrets redacted", func(t *testing.T) {
		code, body := get(t, http.MethodGet, s.Admin+"/pgrest/config")
		if code != 200 {
			t.Fatalf("/pgrest/config = %d %s", code, body)
		}
		for _, secret := range []string{fixtures.AuthenticatorPassword, jwtSecret, "sk-very-secret-value"} {
			if strings.Contains(body, secret) {
				t.Errorf("/pgrest/config shows the secret %q:\n%s", secret, body)
			}
		}
		var got []map[string]any
		if err := json.Unmarshal([]byte(body), &got); err != nil || len(got) != 1 {
			t.Fatalf("/pgrest/config = %s (%v)", body, err)
		}
		cfg := got[0]
		if uri, _ := cfg["db_uri"].(string); !strings.Contains(uri, "authenticator:REDACTED@") {
			t.Errorf("db_uri = %q, want the user kept and the password redacted", uri)
		}
		if cfg["jwt_secret"] != "REDACTED" || cfg["db_anon_role"] != "web_anon" || cfg["db_pool"] != float64(10) {
			t.Errorf("config = %v", cfg)
		}
	})

	t.Run("config, with the in-database settings over the Caddyfile's", func(t *testing.T) {
		superExec(t, "alter role authenticator set pgrst.db_max_rows = '7'; notify pgrst, 'reload config'")
		t.Cleanup(func() {
			superExec(t, "alter role authenticator reset pgrst.db_max_rows; notify pgrst, 'reload config'")
		})
		eventually(t, 30*time.Second, "/pgrest/config does not show the database's db_max_rows", func() bool {
			_, body := get(t, http.MethodGet, s.Admin+"/pgrest/config")
			return strings.Contains(body, `"db_max_rows":7`)
		})
	})

	t.Run("schema cache", func(t *testing.T) {
		code, body := get(t, http.MethodGet, s.Admin+"/pgrest/schema_cache")
		var got []struct {
			Schemas []string `json:"db_schemas"`
			Cache   struct {
				Relations map[string]map[string]json.RawMessage
			} `json:"schema_cache"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil || code != 200 || len(got) != 1 {
			t.Fatalf("/pgrest/schema_cache = %d %.300s (%v)", code, body, err)
		}
		if _, ok := got[0].Cache.Relations["api"]["clients"]; !ok {
			t.Errorf("the schema cache lacks api.clients: %.300s", body)
		}
	})

	t.Run("reload", func(t *testing.T) {
		superExec(t, "create table api.made_after_start (id int primary key); grant select on api.made_after_start to web_anon")
		t.Cleanup(func() { superExec(t, "drop table api.made_after_start") })
		if code, _ := get(t, http.MethodGet, s.API+"/made_after_start"); code != 404 {
			t.Fatalf("a table made after the load = %d before the reload, want 404", code)
		}
		if code, body := get(t, http.MethodPost, s.Admin+"/pgrest/reload"); code != http.StatusNoContent {
			t.Fatalf("POST /pgrest/reload = %d %s", code, body)
		}
		eventually(t, 30*time.Second, "the reloaded cache does not serve the new table", func() bool {
			code, _ := get(t, http.MethodGet, s.API+"/made_after_start")
			return code == 200
		})
		if code, _ := get(t, http.MethodGet, s.Admin+"/pgrest/reload"); code != http.StatusMethodNotAllowed {
			t.Errorf("GET /pgrest/reload = %d, want 405", code)
		}
	})
}
