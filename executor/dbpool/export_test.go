package dbpool

// The insides of the package that acquire_test.go checks. It is in
// package dbpool_test so that it can take its pools from tests/dbpooltest,
// which imports this package.

var (
	AcquireIdle  = acquireIdle
	ErrWouldWait = errWouldWait
)

type NoWaitContext = noWaitContext

const UnsureCancelKey = unsureCancelKey
