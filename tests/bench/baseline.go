package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
	"github.com/pgrest/caddy-pgrest/tests/executorsql"
)

// The baselines send the statements pgrest sends: the settings statement
// and the BEGINs are read from the executor's source (executorsql), so
// they cannot drift from pgrest. The main statements come from pgrest's
// own parse, plan and SQL generation, run in this process against a
// schema cache loaded from the bench database (planWorkloads), with the
// arguments pgrest binds; verifyStatements then checks them, and the
// settings statement, against the statements pgrest prepared.
var (
	executorSQL    = executorsql.MustLoad()
	settingsSQL    = executorSQL.Settings
	beginReadOnly  = executorSQL.BeginReadOnly
	beginReadWrite = executorSQL.BeginReadWrite
)

const (
	settingsName = "bench_settings"
	// pgrest prepares BEGIN and COMMIT once per connection too.
	beginReadOnlyName  = "bench_begin_ro"
	beginReadWriteName = "bench_begin_rw"
	commitName         = "bench_commit"
)

// newRawPool is the raw baseline's pool. Each connection prepares BEGIN,
// COMMIT, the settings statement and the main statements once, when it
// opens, as pgrest prepares them on each connection's first use. The
// main statements name api.*, which the authenticator may not use, so they
// are prepared after switching to the request role, as pgrest prepares
// them inside its pipeline after set_config('role', ...).
func newRawPool(ctx context.Context, dsn string, size int, workloads []*workload) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(size)
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		pg := conn.PgConn()
		for name, sql := range map[string]string{settingsName: settingsSQL, beginReadOnlyName: beginReadOnly,
			beginReadWriteName: beginReadWrite, commitName: "COMMIT"} {
			if _, err := pg.Prepare(ctx, name, sql, nil); err != nil {
				return err
			}
		}
		if _, err := pg.Exec(ctx, sqltext.Fmt("begin; set local role %s", sqltext.Ident(requestRole)).String()).ReadAll(); err != nil {
			return err
		}
		for _, wl := range workloads {
			if _, err := pg.Prepare(ctx, wl.mainName, wl.mainSQL, nil); err != nil {
				return err
			}
		}
		_, err := pg.Exec(ctx, "commit").ReadAll()
		return err
	}
	return pgxpool.NewWithConfig(ctx, cfg)
}

// rawOp is the raw baseline: pgrest's transaction with nothing else
// around it, in the round trips pgrest takes.
func (e *env) rawOp(wl *workload) op {
	var body []byte
	return func(ctx context.Context) error {
		c, err := e.rawPool.Acquire(ctx)
		if err != nil {
			return err
		}
		defer c.Release()
		pg := c.Conn().PgConn()
		if wl.readOnly() {
			body, err = rawRead(ctx, pg, wl, body[:0])
		} else {
			body, err = rawWrite(ctx, pg, wl, body[:0])
		}
		if err != nil {
			// Whatever state the connection is in, the pool drops it.
			_ = c.Conn().Close(context.Background())
			return err
		}
		return wl.check(body)
	}
}

// rawRead sends BEGIN READ ONLY, the settings, the main statement and
// COMMIT as one pipeline and returns the body column, appended to body.
func rawRead(ctx context.Context, pg *pgconn.PgConn, wl *workload, body []byte) ([]byte, error) {
	p := pg.StartPipeline(ctx)
	p.SendQueryPrepared(beginReadOnlyName, nil, nil, nil)
	p.SendQueryPrepared(settingsName, wl.settings, nil, nil)
	p.SendQueryPrepared(wl.mainName, wl.mainArgs, nil, nil)
	p.SendQueryPrepared(commitName, nil, nil, nil)
	body, _, err := readPipeline(p, 4, body)
	return body, err
}

// rawWrite is pgrest's read-write transaction for a write without checks:
// BEGIN READ WRITE, the settings, the main statement and COMMIT as one
// pipeline, one round trip, as pgrest sends it. The main statement's
// result must show the row written.
func rawWrite(ctx context.Context, pg *pgconn.PgConn, wl *workload, body []byte) ([]byte, error) {
	p := pg.StartPipeline(ctx)
	p.SendQueryPrepared(beginReadWriteName, nil, nil, nil)
	p.SendQueryPrepared(settingsName, wl.settings, nil, nil)
	p.SendQueryPrepared(wl.mainName, wl.mainArgs, nil, nil)
	p.SendQueryParams("COMMIT", nil, nil, nil, nil)
	body, written, err := readPipeline(p, 4, body)
	if err == nil && !written {
		err = fmt.Errorf("%s: the insert wrote no row", wl.name)
	}
	return body, err
}

// readPipeline syncs a pipeline of n statements whose third is the main
// statement and reads their results. It returns the main statement's body
// column, appended to body, and whether its page_total is affected. The
// pipeline is closed.
func readPipeline(p *pgconn.Pipeline, n int, body []byte) ([]byte, bool, error) {
	if err := p.Sync(); err != nil {
		_ = p.Close()
		return body, false, err
	}
	const mainIndex = 2
	written := false
	for i := range n {
		res, err := p.GetResults()
		if err != nil {
			_ = p.Close()
			return body, false, err
		}
		rr, ok := res.(*pgconn.ResultReader)
		if !ok {
			_ = p.Close()
			return body, false, fmt.Errorf("pipeline result %d: unexpected %T", i, res)
		}
		for rr.NextRow() {
			if i == mainIndex {
				vals := rr.Values()
				body = append(body, vals[sqlgen.ColBody]...)
				written = isAffected(pgx.TextFormatCode, vals[sqlgen.ColPageTotal])
			}
		}
		if _, err := rr.Close(); err != nil {
			_ = p.Close()
			return body, false, err
		}
	}
	if _, err := p.GetResults(); err != nil { // the Sync
		_ = p.Close()
		return body, false, err
	}
	return body, written, p.Close()
}

// newNaivePool is the naive baseline's pool, as pgx configures it by
// default (statements prepared and cached per connection; string
// arguments sent as text, as pgrest sends them).
func newNaivePool(ctx context.Context, dsn string, size int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(size)
	return pgxpool.NewWithConfig(ctx, cfg)
}

// naiveOp is the naive baseline: the same transaction, one round trip per
// statement through pgx.Tx (BEGIN, settings, main statement, COMMIT); a
// write commits after its result is checked, as pgrest's does.
func (e *env) naiveOp(wl *workload) op {
	args := make([]any, len(wl.settings))
	for i, a := range wl.settings {
		args[i] = string(a)
	}
	mainArgs := make([]any, len(wl.mainArgs))
	for i, a := range wl.mainArgs {
		mainArgs[i] = string(a)
	}
	txOpts := pgx.TxOptions{IsoLevel: pgx.ReadCommitted, AccessMode: pgx.ReadOnly}
	if !wl.readOnly() {
		txOpts.AccessMode = pgx.ReadWrite
	}
	var body []byte
	return func(ctx context.Context) error {
		tx, err := e.naivePool.BeginTx(ctx, txOpts)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback(ctx) }() // a no-op once committed
		if _, err := tx.Exec(ctx, settingsSQL, args...); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, wl.mainSQL, mainArgs...)
		if err != nil {
			return err
		}
		body = body[:0]
		written := false
		for rows.Next() {
			vals := rows.RawValues()
			body = append(body, vals[sqlgen.ColBody]...)
			written = isAffected(rows.FieldDescriptions()[sqlgen.ColPageTotal].Format, vals[sqlgen.ColPageTotal])
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if !wl.readOnly() && !written {
			return fmt.Errorf("%s: the insert wrote no row", wl.name)
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		return wl.check(body)
	}
}

// isAffected says whether a page_total as received (the bigint's 8 bytes
// in binary, which pgx's statement cache asks for; else text) is
// affected.
func isAffected(format int16, v []byte) bool {
	if format == pgx.BinaryFormatCode {
		return len(v) == 8 && binary.BigEndian.Uint64(v) == affected
	}
	return string(v) == strconv.Itoa(affected) // small: no allocation
}
