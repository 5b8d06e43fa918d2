package pgresttest

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// HoldConnections makes n requests of s hold a pool connection each until
// release is called: it takes the advisory lock key on the database at
// lockDSN (pgtest.HoldLock), sends n calls GET /rpc/<function>?key=<key>
// in goroutines, and returns once n sessions there wait for the lock. The
// function is a fixture's that waits for the lock, such as
//
//	create function api.wait_for_lock(key bigint) returns int language sql
//	  as 'select 1 from pg_advisory_xact_lock_shared(key)';
//
// The calls' responses come on answers once released (nil after a
// transport error, which fails t). A test decides when a hold ends,
// instead of sleeping for a time that a loaded machine may outlast.
func HoldConnections(t *testing.T, s *Server, lockDSN, function string, key int64, n int) (release func(), answers <-chan *Response) {
	t.Helper()
	release = pgtest.HoldLock(t, lockDSN, key)
	done := make(chan *Response, n)
	client := &http.Client{Timeout: 5 * time.Minute}
	path := fmt.Sprintf("/rpc/%s?key=%d", function, key)
	for range n {
		go func() {
			res, err := s.Try(client, http.MethodGet, path, "")
			if err != nil {
				t.Errorf("GET %s, holding a connection: %v", path, err)
			}
			done <- res
		}()
	}
	pgtest.WaitForLockWaiters(t, lockDSN, n)
	return release, done
}
