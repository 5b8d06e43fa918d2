package caddymodule

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/pgrest/caddy-pgrest/executor/dbpool"
)

func TestReplicaSubdirectives(t *testing.T) {
	var h Handler
	input := "pgrest {\n db_replicas postgres://a:pw@r1:5432/app,r2/app `host=r3 user=a password=x`\n" +
		" db_replica_max_lag 2s\n db_replica_check_interval 250ms\n}"
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input)); err != nil {
		t.Fatal(err)
	}
	want := ReplicaSettings{
		// A comma belongs to a multi-host URI: only spaces separate replicas.
		DBReplicas:             []string{"postgres://a:pw@r1:5432/app,r2/app", "host=r3 user=a password=x"},
		DBReplicaMaxLag:        caddy.Duration(2 * time.Second),
		DBReplicaCheckInterval: caddy.Duration(250 * time.Millisecond),
	}
	if !reflect.DeepEqual(h.ReplicaSettings, want) {
		t.Errorf("got %+v, want %+v", h.ReplicaSettings, want)
	}
	for _, bad := range []string{"db_replicas", "db_replica_max_lag 0", "db_replica_check_interval soon"} {
		t.Run(bad+" is refused", func(t *testing.T) {
			var h Handler
			if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("pgrest {\n " + bad + "\n}")); err == nil {
				t.Fatalf("%s accepted", bad)
			}
		})
	}
}

func TestReplicaPasswordsAreRedacted(t *testing.T) {
	h := validHandler()
	h.DBReplicas = []string{"postgres://auth:s3cret@r1/app", "host=r2 password='s3cret' user=auth", "{env.REPLICA_URI}"}
	got := h.redacted().DBReplicas
	for _, uri := range got {
		if strings.Contains(uri, "s3cret") {
			t.Errorf("password shown: %s", uri)
		}
	}
	if got[0] != "postgres://auth:REDACTED@r1/app" || got[2] != "{env.REPLICA_URI}" {
		t.Errorf("got %q", got)
	}
	if h.DBReplicas[0] != "postgres://auth:s3cret@r1/app" {
		t.Error("redacting changed the configuration itself")
	}
}

func TestReplicasMustLogInAsTheAuthenticator(t *testing.T) {
	h := validHandler()
	h.DBReplicas = []string{"postgres://authenticator:pw@127.0.0.1:1/app", "postgres://superuser:pw@127.0.0.1:2/app"}
	_, _, err := h.takeReplicas(caddy.NewReplacer(), "postgres://authenticator:pw@127.0.0.1:3/app", "authenticator",
		dbpool.Config{MaxConns: 1}, nil)
	if err == nil || !strings.Contains(err.Error(), `replica 2 logs in as "superuser"`) {
		t.Fatalf("got %v", err)
	}
}
