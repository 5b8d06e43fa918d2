// Package sqlgen turns a plan into SQL text and bind parameters. It is
// pure: no database, no I/O. Its SQL is sqltext.SQL throughout, so the
// text is made only of constants written here, $n placeholders, names
// quoted by sqltext.Ident and type names sqltext checked; values are
// always bind parameters.
package sqlgen

import "github.com/pgrest/caddy-pgrest/executor/sqltext"

// Statement is SQL text with its arguments in text format; a nil argument
// is NULL. Arguments are sent untyped, so PostgreSQL infers each type from
// where it is used, as it does for PostgREST.
type Statement struct {
	SQL  sqltext.SQL
	Args [][]byte
	// RecordsPageTotal says the statement also leaves its page_total in
	// the transaction-local setting pgrst.page_total (see
	// ReadOptions.RecordPageTotal).
	RecordsPageTotal bool
	// Stream, when not NotStreamed, says the statement returns its body
	// row by row, and how to put it together. A byte, in the padding after
	// RecordsPageTotal: a statement is no larger for it.
	Stream StreamShape
}

// Every main statement returns these columns, in this order, so one
// reader serves reads, writes and calls alike: the total row count when
// counted (else NULL), the rows in this page, the body as JSON text, and
// the response.headers and response.status settings as the statement left
// them (read in the same statement: no extra round trip).
const resultColumns = `%s` + pageTotalColumn + restColumns

// pageTotalColumn follows the total in resultColumns.
const pageTotalColumn = ` as total_result_set, pg_catalog.count(_pgrst_t) as page_total, `

// recordedResultColumns are resultColumns whose page_total is also left in
// the transaction-local setting pgrst.page_total: a later statement of
// the transaction (the executor's guard) can then check it in SQL. The
// column is the value set_config stored, so the executor reads the very
// number the guard checks.
const recordedResultColumns = `%s` + recordedPageTotalColumn + restColumns

// recordedPageTotalColumn follows the total in recordedResultColumns.
const recordedPageTotalColumn = ` as total_result_set, ` +
	`pg_catalog.set_config('pgrst.page_total', pg_catalog.count(_pgrst_t)::text, true)::bigint as page_total, `

// restColumns follow page_total.
const restColumns = `%s` + responseColumns

// responseColumns follow the body in restColumns.
const responseColumns = ` as body, ` +
	`nullif(pg_catalog.current_setting('response.headers', true), '') as response_headers, ` +
	`nullif(pg_catalog.current_setting('response.status', true), '') as response_status`

// columns renders the result columns, recording page_total when record.
func columns(record bool, total, body sqltext.SQL) sqltext.SQL {
	if record {
		return sqltext.Fmt(recordedResultColumns, total, body)
	}
	return sqltext.Fmt(resultColumns, total, body)
}

// writeColumns writes the text columns returns.
func writeColumns(b *sqltext.Builder, record bool, total, body sqltext.SQL) {
	b.Write(total)
	if record {
		b.Const(recordedPageTotalColumn)
	} else {
		b.Const(pageTotalColumn)
	}
	b.Write(body)
	b.Const(responseColumns)
}

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
