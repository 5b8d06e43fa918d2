package pgtest

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Lazy is a cluster started on first use, with one database of its own,
// for a package of which only some tests need PostgreSQL: the others do
// not pay for a cluster. Its zero value is ready; Stop it in TestMain.
type Lazy struct {
	once    sync.Once
	cluster *Cluster
	dsn     string
	err     error
}

// Database starts the cluster, and makes a database called name on it,
// on the first call; every call returns that database's superuser URL.
func (l *Lazy) Database(t testing.TB, name string) string {
	t.Helper()
	l.once.Do(func() {
		if l.cluster, l.err = Start(); l.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		l.dsn, l.err = l.cluster.NewDatabase(ctx, name)
	})
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.dsn
}

// Stop stops the cluster, if a test started it.
func (l *Lazy) Stop() {
	if l.cluster != nil {
		l.cluster.Stop()
	}
}
