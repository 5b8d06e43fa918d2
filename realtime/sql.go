package realtime

import _ "embed"

// SQL is realtime.sql: the realtime schema the operator installs once per
// database (messages, topic(), send(), broadcast_changes() and what the
// nodes use between them). Tests and the demo load it from here.
//
//go:embed realtime.sql
var SQL string
