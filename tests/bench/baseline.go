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
// the BEGINs and the session reset are read from the executor's source (executorsql), so
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
	// sessionReset are the statements pgrest sends after COMMIT, in the
	// same pipeline; pgrest prepares them once per connection, as the
	// baselines do (resetName).
	sessionReset = executorSQL.SessionReset
)

const (
	settingsName = "bench_settings"
	// pgrest prepares BEGIN and COMMIT once per connection too.
	beginReadOnlyName  = "bench_begin_ro"
	beginReadWriteName = "bench_begin_rw"
	commitName         = "bench_commit"
)

// resetName is the raw baseline's prepared statement for sessionReset[i].
func resetName(i int) string { return "bench_reset_" + strconv.Itoa(i) }

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
		statements := map[string]string{settingsName: settingsSQL, beginReadOnlyName: beginReadOnly,
			beginReadWriteName: beginReadWrite, commitName: "COMMIT"}
		for i, sql := range sessionReset {
			statements[resetName(i)] = sql
		}
		for name, sql := range statements {
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
func (e *env) rawOp(wl *workload) op { return rawOpOn(e.rawPool)(wl) }

// rawOpOn is the raw baseline's op on pool.
func rawOpOn(pool *pgxpool.Pool) func(wl *workload) op { return rawOpWith(pool, withReset) }

// bareOpOn is the raw baseline's op on pool without the session reset:
// the transaction of the ceiling measurement kept beside the project
// (BEGIN, the settings, the main statement, COMMIT), whose D leaves the
// reset out, so that pgrest's share of that ceiling pays for its reset.
func bareOpOn(pool *pgxpool.Pool) func(wl *workload) op { return rawOpWith(pool, withoutReset) }

// resetMode says whether a raw pipeline ends with pgrest's session reset.
type resetMode bool

const (
	withReset    resetMode = true
	withoutReset resetMode = false
)

// rawOpWith is the raw baseline's op on pool, with or without the reset.
func rawOpWith(pool *pgxpool.Pool, reset resetMode) func(wl *workload) op {
	return func(wl *workload) op {
		var body []byte
		return func(ctx context.Context) error {
			var err error
			if body, err = runRaw(ctx, pool, wl, body[:0], reset); err != nil {
				return err
			}
			return wl.check(body)
		}
	}
}

// runRaw is the raw baseline's transaction on a connection of pool: the
// body is appended to body.
func runRaw(ctx context.Context, pool *pgxpool.Pool, wl *workload, body []byte, reset resetMode) ([]byte, error) {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return body, err
	}
	defer c.Release()
	pg := c.Conn().PgConn()
	begin := beginReadOnlyName
	if !wl.readOnly() {
		begin = beginReadWriteName
	}
	body, written, err := rawPipeline(ctx, pg, begin, wl, body, reset)
	if err == nil && !wl.readOnly() && !written {
		// A write's main statement must show the row written.
		err = fmt.Errorf("%s: the write changed no row", wl.name)
	}
	if err != nil {
		// Whatever state the connection is in, the pool drops it.
		_ = c.Conn().Close(context.Background())
	}
	return body, err
}

// rawPipeline sends the transaction pgrest sends for wl, every statement
// prepared, one round trip: BEGIN READ ONLY or READ WRITE (begin), the
// settings, the main statement, COMMIT, then, with reset, sessionReset,
// one Sync. It returns the main statement's body column, appended to
// body, and whether its page_total shows a row written.
func rawPipeline(ctx context.Context, pg *pgconn.PgConn, begin string, wl *workload, body []byte, reset resetMode) ([]byte, bool, error) {
	p := pg.StartPipeline(ctx)
	p.SendQueryPrepared(begin, nil, nil, nil)
	p.SendQueryPrepared(settingsName, wl.settings, nil, nil)
	p.SendQueryPrepared(wl.mainName, wl.mainArgs, nil, nil)
	p.SendQueryPrepared(commitName, nil, nil, nil)
	n := 4
	if reset {
		for i := range sessionReset {
			p.SendQueryPrepared(resetNames[i], nil, nil, nil)
		}
		n += len(sessionReset)
	}
	return readPipeline(p, n, body, wl.stream)
}

// resetNames are resetName's, made once: not a string per request.
var resetNames = func() []string {
	names := make([]string, len(sessionReset))
	for i := range names {
		names[i] = resetName(i)
	}
	return names
}()

// readPipeline syncs a pipeline of n statements whose third is the main
// statement and reads their results. It returns the main statement's body
// column, appended to body, and whether its page_total is affected. The
// pipeline is closed.
func readPipeline(p *pgconn.Pipeline, n int, body []byte, stream *sqlgen.RowStream) ([]byte, bool, error) {
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
		for row := 0; rr.NextRow(); row++ {
			if i == mainIndex {
				vals := rr.Values()
				body = addMainRow(body, stream, row, vals)
				written = written || isAffected(pgx.TextFormatCode, vals[sqlgen.ColPageTotal])
			}
		}
		if i == mainIndex {
			body = endMainBody(body, stream)
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
		for row := 0; rows.Next(); row++ {
			vals := rows.RawValues()
			body = addMainRow(body, wl.stream, row, vals)
			written = written || isAffected(rows.FieldDescriptions()[sqlgen.ColPageTotal].Format, vals[sqlgen.ColPageTotal])
		}
		body = endMainBody(body, wl.stream)
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if !wl.readOnly() && !written {
			return fmt.Errorf("%s: the write changed no row", wl.name)
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
