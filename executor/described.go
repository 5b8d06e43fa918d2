package executor

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// sendKnown sends the statement named, when the connection has it
// prepared, with Bind and Execute alone: its result is read with the
// description kept from its Parse, so the server builds no row
// description for it and pgx decodes none. It reports whether the
// statement was prepared (and so sent).
//
// A description can be stale only as far as pgrest never looks: the
// result of a named statement cannot change its columns (PostgreSQL
// fails its Bind with 0A000, "cached plan must not change result type",
// described or not), a schema cache reload deallocates every statement
// with its description (preparedOn), and pgrest reads every value by
// position as text, never by the fields described.
//
// Only a description with fields is sent this way. pgx queues the
// description of each statement so sent and takes one back per result,
// but a statement the server skips after an error leaves the queue of
// results without leaving the queue of descriptions: after the Sync that
// ends the error, the next such statement is read with the skipped one's
// description (in a guarded write, the COMMIT after a failed main
// statement reads with the guard's). pgx sends a Describe of the portal
// for a description without fields and expects its answer; with fields
// in every description, it expects none for any, and a borrowed
// description changes nothing pgrest reads. A statement described
// without fields (none of pgrest's main, settings, pre-request or guard
// statements; transaction control has txControlFields) is sent
// described.
func sendKnown(p *pgconn.Pipeline, prepared *statementSet, name string, args [][]byte) bool {
	sd := prepared.description(name)
	if sd == nil {
		return false
	}
	if len(sd.Fields) == 0 {
		p.SendQueryPrepared(name, args, nil, nil)
		return true
	}
	p.SendQueryStatement(sd, args, nil, nil)
	return true
}

// readPrepared reads the answer to a Parse sent in the pipeline, the
// statement's description, and records the statement as prepared.
func readPrepared(p *pgconn.Pipeline, prepared *statementSet, name string) error {
	out, err := p.GetResults()
	if err != nil {
		return err
	}
	sd, ok := out.(*pgconn.StatementDescription)
	if !ok {
		return errors.New("pipeline: unexpected result for a Parse")
	}
	// pgx leaves unnamed the statements it describes in a pipeline.
	sd.Name = name
	prepared.add(sd)
	return nil
}
