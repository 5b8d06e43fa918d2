package pgbouncer

import (
	"strings"
	"testing"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func execSQL(t *testing.T, sql string) {
	t.Helper()
	pgtest.Exec(t, db.SuperDSN, sql)
}
