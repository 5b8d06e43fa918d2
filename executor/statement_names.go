package executor

import "sync"

// statementNames remembers the names statementName computed, so that a
// request shape seen before costs a map lookup instead of a SHA-256 of its
// text. The name is a function of the role and the text alone, so an entry
// is right for every request and every executor; no value of a request is
// in it (values travel as parameters, never in the text).
//
// Request shapes are many (a client chooses its columns and filters), so
// the memo is bounded: once it holds maxStatementNames entries it is
// emptied and fills again with the shapes in use.
var statementNames struct {
	mu sync.RWMutex
	m  map[statementKey]string
}

const maxStatementNames = 4096

type statementKey struct{ role, sql string }

// cachedStatementName is statementName through the memo.
func cachedStatementName(role, sql string) string {
	key := statementKey{role, sql}
	statementNames.mu.RLock()
	name, ok := statementNames.m[key]
	statementNames.mu.RUnlock()
	if ok {
		return name
	}
	name = statementName(role, sql)
	statementNames.mu.Lock()
	if len(statementNames.m) >= maxStatementNames || statementNames.m == nil {
		statementNames.m = make(map[statementKey]string)
	}
	statementNames.m[key] = name
	statementNames.mu.Unlock()
	return name
}
