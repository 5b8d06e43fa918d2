package sqlgen

import (
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// RowStream is how the executor puts together the body of a streamed
// read (ReadOptions.Stream): the statement's first row carries the
// standard columns, with the body's opening in the body column ("[", or
// CSV's header line); every later row carries one row's text in the body
// column and NULL elsewhere. The body is the opening, the rows' texts
// joined by Separator, then End: byte for byte what the aggregated
// statement builds (json_agg's and string_agg's separators).
type RowStream struct {
	Separator string
	End       string
}

// StreamShape names a statement's RowStream.
type StreamShape uint8

// The shapes of the bodies a read can stream.
const (
	// NotStreamed: the statement returns one row, the body whole.
	NotStreamed StreamShape = iota
	// StreamJSON: json_agg puts ", " and, before a composite, "\n "
	// between elements.
	StreamJSON
	// StreamStrippedJSON: json_strip_nulls gives json values, which
	// json_agg separates with ", " alone.
	StreamStrippedJSON
	// StreamCSV: records, a newline between them.
	StreamCSV
)

var rowStreams = [...]RowStream{
	StreamJSON:         {Separator: ", \n ", End: "]"},
	StreamStrippedJSON: {Separator: ", ", End: "]"},
	StreamCSV:          {Separator: "\n"},
}

// Rows is how a body of shape k is put together; nil for NotStreamed.
func (k StreamShape) Rows() *RowStream {
	if k == NotStreamed || int(k) >= len(rowStreams) {
		return nil
	}
	return &rowStreams[k]
}

// streamShapeOf is the shape of a read with opts, NotStreamed when the
// read is built whole: it was not asked to stream, has no body (HEAD),
// checks its page_total in a later statement, or is not an array of rows
// (one object, GeoJSON, a media handler's body).
func streamShapeOf(opts ReadOptions) StreamShape {
	if !opts.Stream || opts.NoBody || opts.RecordPageTotal {
		return NotStreamed
	}
	switch opts.Representation.Media {
	case apirequest.MediaJSON:
		if opts.Representation.StripNulls {
			return StreamStrippedJSON
		}
		return StreamJSON
	case apirequest.MediaCSV:
		return StreamCSV
	}
	return NotStreamed
}

// streamRowText is one row's text in a streamed read of rows: what
// bodyExpr aggregates.
func streamRowText(opts ReadOptions) sqltext.SQL {
	switch {
	case opts.Representation.Media == apirequest.MediaCSV:
		return csvRowText
	case opts.Representation.StripNulls:
		return sqltext.Const("pg_catalog.json_strip_nulls(pg_catalog.row_to_json(_pgrst_t))::text")
	}
	return sqltext.Const("pg_catalog.row_to_json(_pgrst_t)::text")
}

// streamOpening is the body column of a streamed read's first row.
func streamOpening(opts ReadOptions) sqltext.SQL {
	if opts.Representation.Media == apirequest.MediaCSV {
		return csvHeaderLine
	}
	return sqltext.Const("'['::text")
}

// csvRowText is a row's record text without its parentheses; csvHeaderLine
// the first row's keys and a newline (empty, then the newline, without
// rows), as PostgREST renders CSV.
var (
	csvRowText    = sqltext.Const("pg_catalog.substring(_pgrst_t::text, 2, pg_catalog.length(_pgrst_t::text) - 2)")
	csvHeaderLine = sqltext.Const("(select coalesce(pg_catalog.string_agg(a.k, ','), '') from (select pg_catalog.json_object_keys(r) as k " +
		"from (select pg_catalog.row_to_json(hh) as r from pgrst_source as hh limit 1) s) a) || pg_catalog.chr(10)")
)

// writeStreamed writes, after the CTE pgrst_source, the rest of a
// streamed read: pgrst_rows, each row's text; a first row that counts
// them, then reads the response settings; then the rows in order.
//
// Both CTEs are NOT MATERIALIZED, so the source is run twice in the
// statement's one snapshot: the count's copy drops the columns it does not
// read (an index-only scan for a table), and the rows' copy streams
// without being stored first. Stored, the rows were written to a
// temporary file past work_mem and read back: a 1,000,000-row read took
// 1.3× PostgreSQL's production of its rows alone, against 1.07× inlined.
// PostgreSQL stores a CTE that calls a volatile function all the same, so
// a computed column's set_config of response.headers still runs once per
// row, and the whole store is read by the count before the first row's
// settings are: they are in the first row, as in the aggregated statement.
// UNION ALL runs its branches in order when it runs in the leader.
func writeStreamed(b *sqltext.Builder, opts ReadOptions, total sqltext.SQL) {
	b.Const(", pgrst_rows as not materialized (select ")
	b.Write(streamRowText(opts))
	b.Const(" as body from pgrst_source _pgrst_t) select ")
	b.Write(total)
	b.Const(" as total_result_set, _pgrst_n.n as page_total, ")
	b.Write(streamOpening(opts))
	b.Const(responseColumns)
	// pg_backend_pid() is parallel restricted: it keeps the UNION ALL in
	// the leader, where its branches run in order. Both branches inlined
	// are otherwise parallel safe, and a Parallel Append under a Gather
	// (a filtered scan of a large table) would send rows before the count.
	b.Const(" from (select pg_catalog.count(*) as n from pgrst_rows) _pgrst_n where pg_catalog.pg_backend_pid() <> 0" +
		" union all select null, null, body, null, null from pgrst_rows")
}

// streamFrameRoom is what writeStreamed writes beyond the aggregated
// statement's frame (see statementSize).
const streamFrameRoom = 320
