package read

import (
	"net/http"
	"testing"
)

// TestRollbackSpec mirrors PostgREST v16.2's test/spec/Feature/RollbackSpec.hs
// (allowed, disallowed, forced): reads and writes on items under each
// db_tx_end its three configurations map to, with no Prefer tx, with
// Prefer: tx=commit and with tx=rollback, and whether the writes persist
// and the preference is echoed. Its raise_constraint cases are
// tests/rpc's TestRollbackRaisesDeferredConstraints. The cases that
// persist delete their rows again, as the spec's deleteItems does.
func TestRollbackSpec(t *testing.T) {
	preferDefault := []string{"Prefer", "return=representation"}
	preferCommit := append(preferDefault[:2:2], "Prefer", "tx=commit")
	preferRollback := append(preferDefault[:2:2], "Prefer", "tx=rollback")
	commitApplied := map[string]string{"Preference-Applied": "tx=commit"}
	rollbackApplied := map[string]string{"Preference-Applied": "tx=rollback"}
	type group struct {
		name    string
		prefer  []string
		applied map[string]string
		persist bool
	}
	configs := []struct {
		name, txEnd string
		groups      []group
	}{
		{"tx-allow-override = true", "rollback-allow-override", []group{
			{"without Prefer tx", preferDefault, nil, false},
			{"Prefer tx=commit", preferCommit, commitApplied, true},
			{"Prefer tx=rollback", preferRollback, rollbackApplied, false},
		}},
		{"tx-rollback-all = false, tx-allow-override = false", "commit", []group{
			{"without Prefer tx", preferDefault, nil, true},
			{"Prefer tx=commit", preferCommit, nil, true},
			{"Prefer tx=rollback", preferRollback, nil, true},
		}},
		{"tx-rollback-all = true, tx-allow-override = false", "rollback", []group{
			{"without Prefer tx", preferDefault, nil, false},
			{"Prefer tx=commit", preferCommit, nil, false},
			{"Prefer tx=rollback", preferRollback, nil, false},
		}},
	}
	for _, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			s := startSpecServer(t, "db_tx_end "+cfg.txEnd)
			for _, g := range cfg.groups {
				t.Run(g.name, func(t *testing.T) {
					cases := rollbackReads(g.prefer, g.applied)
					if g.persist {
						cases = append(cases, rollbackPersisted(g.prefer, g.applied)...)
					} else {
						cases = append(cases, rollbackNotPersisted(g.prefer, g.applied)...)
					}
					runSpecRequests(t, s, cases)
				})
			}
		})
	}
}

// rollbackReads is RollbackSpec's shouldRespondToReads.
func rollbackReads(prefer []string, applied map[string]string) []specRequest {
	return []specRequest{
		{name: `responds to GET`, path: `/items?id=eq.1`, header: prefer, body: `[{"id":1}]`, contains: applied},
		{name: `responds to HEAD`, method: http.MethodHead, path: `/items?id=eq.1`, header: prefer, raw: true, match: specJSON, contains: applied},
		{name: `responds to GET on RPC`, path: `/rpc/search?id=1`, header: prefer, body: `[{"id":1}]`, contains: applied},
		{name: `responds to POST on RPC`, method: http.MethodPost, path: `/rpc/search`, header: prefer, reqBody: `{"id":1}`, body: `[{"id":1}]`, contains: applied},
	}
}

// rollbackPostItem is RollbackSpec's postItem: it commits the row 0.
var rollbackPostItem = specRequest{name: `postItem`, method: http.MethodPost, path: `/items`,
	header: []string{"Prefer", "tx=commit", "Prefer", "resolution=ignore-duplicates"}, reqBody: `{"id":0}`,
	status: http.StatusCreated, raw: true, match: map[string]string{"Content-Type": "", "Content-Length": "0"}}

// rollbackDeleteItems is RollbackSpec's deleteItems: it commits the
// removal of the rows the writes left.
var rollbackDeleteItems = specRequest{name: `deleteItems`, method: http.MethodDelete, path: `/items?id=lte.0`,
	header: []string{"Prefer", "tx=commit"}, status: http.StatusNoContent, raw: true,
	match: map[string]string{"Content-Type": "", "Content-Length": ""}}

// rollbackGet is a plain GET of the spec's checks after a write.
func rollbackGet(name, path, body string) specRequest {
	return specRequest{name: name, path: path, body: body}
}

// named is c under name.
func named(c specRequest, name string) specRequest {
	c.name = name
	return c
}

// rollbackPersisted is RollbackSpec's shouldPersistMutations.
func rollbackPersisted(prefer []string, applied map[string]string) []specRequest {
	return []specRequest{
		{name: `does persist post`, method: http.MethodPost, path: `/items`, header: prefer, reqBody: `{"id":0}`, status: http.StatusCreated, body: `[{"id":0}]`, contains: applied},
		rollbackGet(`does persist post (2)`, `/items?id=eq.0`, `[{"id":0}]`),
		named(rollbackDeleteItems, `does persist post (3)`),
		{name: `does persist put`, method: http.MethodPut, path: `/items?id=eq.0`, header: prefer, reqBody: `{"id":0}`, status: http.StatusCreated, body: `[{"id":0}]`, contains: applied},
		rollbackGet(`does persist put (2)`, `/items?id=eq.0`, `[{"id":0}]`),
		named(rollbackDeleteItems, `does persist put (3)`),
		named(rollbackPostItem, `does persist patch`),
		{name: `does persist patch (2)`, method: http.MethodPatch, path: `/items?id=eq.0`, header: prefer, reqBody: `{"id":-1}`, body: `[{"id":-1}]`, contains: applied},
		rollbackGet(`does persist patch (3)`, `/items?id=eq.0`, `[]`),
		rollbackGet(`does persist patch (4)`, `/items?id=eq.-1`, `[{"id":-1}]`),
		named(rollbackDeleteItems, `does persist patch (5)`),
		named(rollbackPostItem, `does persist delete`),
		{name: `does persist delete (2)`, method: http.MethodDelete, path: `/items?id=eq.0`, header: prefer, body: `[{"id":0}]`, contains: applied},
		rollbackGet(`does persist delete (3)`, `/items?id=eq.0`, `[]`),
	}
}

// rollbackNotPersisted is RollbackSpec's shouldNotPersistMutations.
func rollbackNotPersisted(prefer []string, applied map[string]string) []specRequest {
	return []specRequest{
		{name: `does not persist post`, method: http.MethodPost, path: `/items`, header: prefer, reqBody: `{"id":0}`, status: http.StatusCreated, body: `[{"id":0}]`, contains: applied},
		rollbackGet(`does not persist post (2)`, `/items?id=eq.0`, `[]`),
		{name: `does not persist put`, method: http.MethodPut, path: `/items?id=eq.0`, header: prefer, reqBody: `{"id":0}`, status: http.StatusCreated, body: `[{"id":0}]`, contains: applied},
		rollbackGet(`does not persist put (2)`, `/items?id=eq.0`, `[]`),
		{name: `does not persist patch`, method: http.MethodPatch, path: `/items?id=eq.1`, header: prefer, reqBody: `{"id":0}`, body: `[{"id":0}]`, contains: applied},
		rollbackGet(`does not persist patch (2)`, `/items?id=eq.0`, `[]`),
		rollbackGet(`does not persist patch (3)`, `/items?id=eq.1`, `[{"id":1}]`),
		{name: `does not persist delete`, method: http.MethodDelete, path: `/items?id=eq.1`, header: prefer, body: `[{"id":1}]`, contains: applied},
		rollbackGet(`does not persist delete (2)`, `/items?id=eq.1`, `[{"id":1}]`),
	}
}
