package executor

import "github.com/pgrest/caddy-pgrest/executor/sqlgen"

// txStorage is what a usual transaction needs besides its SQL, allocated
// as one: the list of statements (settings, pre-request, main), the
// settings statement's arguments, the transaction's spec and the
// response. Each of these was an allocation of its own; a
// one-row read now makes one where it made five. A transaction that
// needs more room (extra statements, app settings) allocates the part
// that does not fit as before.
//
// It is allocated per request and never reused, so nothing of one
// request can reach another; everything in it lives as long as the
// longest-lived part (the response), which is the request's lifetime.
type txStorage struct {
	statements   [3]sqlgen.Statement
	settingsArgs [settingsFixedArgs][]byte
	spec         txSpec
	out          output
}
