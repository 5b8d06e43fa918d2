package main

import "github.com/pgrest/caddy-pgrest/executor/sqlgen"

// A read's main statement returns its body row by row (sqlgen.RowStream),
// as pgrest asks for every GET: the baselines put the body together as
// pgrest does, so that they answer the same bytes.

// addMainRow appends to body the body column of the main statement's row
// number row (from 0): of a streamed read, the first row's opening, then
// each row's text after the separator (from the third row on).
func addMainRow(body []byte, stream *sqlgen.RowStream, row int, vals [][]byte) []byte {
	if stream != nil && row > 1 {
		body = append(body, stream.Separator...)
	}
	return append(body, vals[sqlgen.ColBody]...)
}

// endMainBody ends the body of a streamed read.
func endMainBody(body []byte, stream *sqlgen.RowStream) []byte {
	if stream != nil {
		body = append(body, stream.End...)
	}
	return body
}
