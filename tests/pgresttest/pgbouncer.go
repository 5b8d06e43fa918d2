package pgresttest

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// EnvPgBouncer names the environment variable that runs a package's HTTP
// tests through PgBouncer in transaction pooling mode: with it set to 1,
// SetUp starts PgBouncer in front of the throwaway cluster, and every
// server Serve starts connects through it, with what PgBouncer's
// transaction mode needs (db_prepared_statements false) and the NOTIFY
// listener's session connection around it (db_channel_uri, the cluster
// directly). Tests checking the database themselves still connect
// directly.
const EnvPgBouncer = "PGREST_TEST_PGBOUNCER"

func viaPgBouncer() bool { return os.Getenv(EnvPgBouncer) == "1" }

// bouncer is the cluster whose PgBouncer servers go through.
var bouncer struct {
	sync.Mutex
	cluster *pgtest.Cluster
}

func startPgBouncer(c *pgtest.Cluster) error {
	if _, err := c.StartPgBouncer(); err != nil {
		return fmt.Errorf("starting PgBouncer (%s=1): %w", EnvPgBouncer, err)
	}
	bouncer.Lock()
	bouncer.cluster = c
	bouncer.Unlock()
	return nil
}

// throughPgBouncer rewrites a server's subdirectives to reach the database
// through PgBouncer, when EnvPgBouncer asks for it.
func throughPgBouncer(dirs map[string]string) (map[string]string, error) {
	bouncer.Lock()
	c := bouncer.cluster
	bouncer.Unlock()
	if c == nil || dirs["db_uri"] == "" {
		return dirs, nil
	}
	direct := unquote(dirs["db_uri"])
	via, err := c.ViaPgBouncer(direct)
	if err != nil {
		return nil, err
	}
	out := Directives(dirs)
	out["db_uri"] = Quote(via)
	out["db_prepared_statements"] = "false"
	if _, set := out["db_channel_uri"]; !set {
		out["db_channel_uri"] = Quote(direct)
	}
	return out, nil
}

// unquote undoes Quote.
func unquote(v string) string {
	if len(v) >= 2 && strings.HasPrefix(v, "`") && strings.HasSuffix(v, "`") {
		return v[1 : len(v)-1]
	}
	return v
}
