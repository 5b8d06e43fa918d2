// Package demo holds the SQL of make demo, embedded so that tests load the
// very text the demo runs: RolesSQL is also the role setup of every test
// fixture (tests/fixtures.Roles).
package demo

import _ "embed"

// RolesSQL is roles.sql: the roles authenticator (login, no password, no
// privileges of its own), web_anon and webuser, made only when absent.
//
//go:embed roles.sql
var RolesSQL string

// SchemaSQL is schema.sql: the demo's to-do API and its login function, in
// one transaction. It needs RolesSQL's roles.
//
//go:embed schema.sql
var SchemaSQL string

// RealtimeSQL is realtime.sql: the grants and the private-channel policy
// of the demo's realtime socket, loaded after realtime/realtime.sql.
//
//go:embed realtime.sql
var RealtimeSQL string
