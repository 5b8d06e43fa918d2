package sqlgen

// Statement is SQL text with its arguments in text format; a nil argument
// is NULL. Arguments are sent untyped, so PostgreSQL infers each type from
// where it is used, as it does for PostgREST.
type Statement struct {
	SQL  string
	Args [][]byte
}

// Every main statement returns these columns, in this order, so one
// reader serves reads, writes and calls alike: the total row count when
// counted (else NULL), the rows in this page, the body as JSON text, and
// the response.headers and response.status settings as the statement left
// them (read in the same statement: no extra round trip).
const resultColumns = `%s as total_result_set, pg_catalog.count(_pgrst_t) as page_total, ` +
	`%s as body, ` +
	`nullif(pg_catalog.current_setting('response.headers', true), '') as response_headers, ` +
	`nullif(pg_catalog.current_setting('response.status', true), '') as response_status`

// Result column positions.
const (
	ColTotal = iota
	ColPageTotal
	ColBody
	ColResponseHeaders
	ColResponseStatus
	// ColInserted is present only on upserts (WriteOptions.CountInserted).
	ColInserted
)
