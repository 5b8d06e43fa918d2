package schemacache

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// catalogQuery is one of Load's queries: constant SQL text taking the
// exposed schemas as $1 when bySchemas is set, and what reads its rows.
type catalogQuery struct {
	what      string
	sql       string
	bySchemas bool
	read      func(pgx.Rows) error
}

// Statements around the catalog queries when Load runs them in a
// transaction of its own: one snapshot of the catalog, and no JIT
// compilation, which costs the catalog queries, whose plans look
// expensive to the planner but run in milliseconds, up to a second each.
const (
	beginCatalogSQL = "begin isolation level repeatable read read only"
	noJITSQL        = "set local jit = off"
	endCatalogSQL   = "rollback"
)

// runPipelined sends every query in one pipeline, a single round trip
// ending in one Sync, and reads the results in order as they arrive. Each
// statement is an unnamed one (Parse, Bind, Describe, Execute), so no
// prepared statement outlives it: PgBouncer in transaction mode, and
// a pre-request function or pooler that drops a connection's
// statements, leave it working. When the connection is idle, the
// queries run in a read-only repeatable-read transaction of their own,
// which is rolled back; inside the caller's transaction they run in that.
func runPipelined(ctx context.Context, conn *pgx.Conn, schemas []string, queries []catalogQuery) (err error) {
	pg := conn.PgConn()
	ownTx := pg.TxStatus() == 'I'
	schemasParam, err := conn.TypeMap().Encode(pgtype.TextArrayOID, pgtype.BinaryFormatCode, schemas, nil)
	if err != nil {
		return fmt.Errorf("encoding the schema names: %w", err)
	}
	binary := []int16{pgtype.BinaryFormatCode}

	p := pg.StartPipeline(ctx)
	var closed bool
	defer func() {
		if !closed {
			// Drains what is left of the pipeline up to its Sync.
			_ = p.Close()
		}
		if err != nil && ownTx && pg.TxStatus() != 'I' && !pg.IsClosed() {
			// A failed query leaves the transaction aborted, with the
			// rollback skipped: end it, so that the connection goes
			// back to its pool as it came.
			_, _ = pg.Exec(context.WithoutCancel(ctx), endCatalogSQL).ReadAll()
		}
	}()
	var setup []string
	if ownTx {
		setup = []string{beginCatalogSQL, noJITSQL}
		for _, sql := range setup {
			p.SendQueryParams(sql, nil, nil, nil, nil)
		}
	}
	for _, q := range queries {
		if q.bySchemas {
			p.SendQueryParams(q.sql, [][]byte{schemasParam}, []uint32{pgtype.TextArrayOID},
				binary, binary)
		} else {
			p.SendQueryParams(q.sql, nil, nil, nil, binary)
		}
	}
	if ownTx {
		p.SendQueryParams(endCatalogSQL, nil, nil, nil, nil)
	}
	if err := p.Sync(); err != nil {
		return err
	}

	for _, sql := range setup {
		if err := discardResult(p); err != nil {
			return fmt.Errorf("%s: %w", sql, err)
		}
	}
	for _, q := range queries {
		res, err := p.GetResults()
		if err != nil {
			return fmt.Errorf("loading %s: %w", q.what, err)
		}
		rr, ok := res.(*pgconn.ResultReader)
		if !ok {
			return fmt.Errorf("loading %s: expected rows, got %T", q.what, res)
		}
		rows := pgx.RowsFromResultReader(conn.TypeMap(), rr)
		err = q.read(rows)
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
		if err != nil {
			return fmt.Errorf("loading %s: %w", q.what, err)
		}
	}
	if ownTx {
		if err := discardResult(p); err != nil {
			return fmt.Errorf("%s: %w", endCatalogSQL, err)
		}
	}
	res, err := p.GetResults()
	if err != nil {
		return err
	}
	if _, ok := res.(*pgconn.PipelineSync); !ok {
		return fmt.Errorf("expected the end of the pipeline, got %T", res)
	}
	closed = true
	return p.Close()
}

// discardResult reads the result of a statement that returns no rows.
func discardResult(p *pgconn.Pipeline) error {
	res, err := p.GetResults()
	if err != nil {
		return err
	}
	rr, ok := res.(*pgconn.ResultReader)
	if !ok {
		return errors.New("expected a command's result")
	}
	_, err = rr.Close()
	return err
}
