package executor

import "time"

// Observer is told of the events pgrest's metrics count. Its methods run
// on the request path and in the schema cache loader: they must be cheap
// and safe for concurrent use. A nil Observer is allowed everywhere.
type Observer interface {
	// SchemaCacheLoaded reports one schema cache load: how long it took
	// and why it failed (nil on success).
	SchemaCacheLoaded(took time.Duration, err error)
	// AcquireStarted and AcquireEnded bracket a request's wait for a pool
	// connection; timedOut says it waited db_pool_acquisition_timeout in
	// vain.
	AcquireStarted()
	AcquireEnded(timedOut bool)
}
