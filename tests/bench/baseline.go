package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// The baselines send the statements pgrest sends. pgrest exports neither
// (and should not, for a benchmark), so they are copied here character for
// character: settingsSQL from executor/settings.go, beginReadOnly and
// beginReadWrite from executor/runner.go, sessionReset from
// executor/session_reset.go. checkExecutorSQL reads those
// files at start and refuses to run when a copy no longer matches, so the
// baselines cannot drift from pgrest unnoticed. The main statements are not copied: they
// come from pgrest's own parse, plan and SQL generation, run in this
// process against a schema cache loaded from the bench database
// (planWorkloads), with the arguments pgrest binds; verifyStatements then
// checks them, and the settings statement, against the statements pgrest
// prepared.
const (
	settingsSQL = `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true), ` +
		`set_config('request.method', $3, true), set_config('request.path', $4, true), ` +
		`set_config('request.headers', $5, true), set_config('request.cookies', $6, true), ` +
		`set_config('search_path', $7, true), ` +
		`set_config('response.headers', '', true), set_config('response.status', '', true)`
	beginReadOnly  = "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY"
	beginReadWrite = "BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE"

	settingsName = "bench_settings"
	// pgrest prepares BEGIN and COMMIT once per connection too.
	beginReadOnlyName  = "bench_begin_ro"
	beginReadWriteName = "bench_begin_rw"
	commitName         = "bench_commit"
)

// sessionReset are the statements pgrest sends after COMMIT, in the same
// pipeline, so that nothing a request left at session level reaches the
// next one on its connection; pgrest prepares them once per connection,
// as the baselines do (resetName).
var sessionReset = []string{
	"CLOSE ALL",
	"SET SESSION AUTHORIZATION DEFAULT",
	"RESET ALL",
	"UNLISTEN *",
	"SELECT pg_catalog.pg_advisory_unlock_all()",
	"DISCARD TEMP",
	"DISCARD SEQUENCES",
}

// resetName is the raw baseline's prepared statement for sessionReset[i].
func resetName(i int) string { return "bench_reset_" + strconv.Itoa(i) }

// checkExecutorSQL compares the copies above with the constants in the
// executor's source, found from the working folder up to go.mod.
func checkExecutorSQL() error {
	root, err := pgtest.ModuleRoot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: cannot check the SQL copied from the executor (%v); run from the repository\n", err)
		return nil
	}
	for _, c := range []struct{ file, name, copy string }{
		{"executor/settings.go", "settingsSQL", settingsSQL},
		{"executor/runner.go", "beginReadOnly", beginReadOnly},
		{"executor/runner.go", "beginReadWrite", beginReadWrite},
	} {
		got, err := stringConst(filepath.Join(root, c.file), c.name)
		if err != nil {
			return err
		}
		if got != c.copy {
			return fmt.Errorf("%s in %s changed; update the copy in tests/bench so the baselines send what pgrest sends:\n%s",
				c.name, c.file, got)
		}
	}
	got, err := stringList(filepath.Join(root, "executor/session_reset.go"), "sessionReset")
	if err != nil {
		return err
	}
	if !slices.Equal(got, sessionReset) {
		return fmt.Errorf("sessionReset in executor/session_reset.go changed; update the copy in tests/bench so the baselines send what pgrest sends:\n%q", got)
	}
	return nil
}

// stringConst evaluates the string constant name declared in file, a
// concatenation of string literals.
func stringConst(file, name string) (string, error) {
	e, err := declared(file, token.CONST, name)
	if err != nil {
		return "", err
	}
	if v, ok := literal(e); ok {
		return v, nil
	}
	return "", fmt.Errorf("%s in %s is no longer a concatenation of string literals", name, file)
}

// stringList evaluates the variable name declared in file as an array or
// slice literal of string literals.
func stringList(file, name string) ([]string, error) {
	e, err := declared(file, token.VAR, name)
	if err != nil {
		return nil, err
	}
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil, fmt.Errorf("%s in %s is no longer a list literal", name, file)
	}
	var list []string
	for _, e := range lit.Elts {
		v, ok := literal(e)
		if !ok {
			return nil, fmt.Errorf("%s in %s is no longer a list of string literals", name, file)
		}
		list = append(list, v)
	}
	return list, nil
}

// declared is the value of the constant or variable (tok) name declared
// at the top level of file.
func declared(file string, tok token.Token, name string) (ast.Expr, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != tok {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name == name && i < len(vs.Values) {
					return vs.Values[i], nil
				}
			}
		}
	}
	return nil, fmt.Errorf("%s: %s %s not found", file, tok, name)
}

func literal(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return literal(e.X)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		a, ok := literal(e.X)
		if !ok {
			return "", false
		}
		b, ok := literal(e.Y)
		return a + b, ok
	}
	return "", false
}

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
func rawOpOn(pool *pgxpool.Pool) func(wl *workload) op {
	return func(wl *workload) op {
		var body []byte
		return func(ctx context.Context) error {
			var err error
			if body, err = runRaw(ctx, pool, wl, body[:0]); err != nil {
				return err
			}
			return wl.check(body)
		}
	}
}

// runRaw is the raw baseline's transaction on a connection of pool: the
// body is appended to body.
func runRaw(ctx context.Context, pool *pgxpool.Pool, wl *workload, body []byte) ([]byte, error) {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return body, err
	}
	defer c.Release()
	pg := c.Conn().PgConn()
	if wl.readOnly() {
		body, err = rawRead(ctx, pg, wl, body)
	} else {
		body, err = rawWrite(ctx, pg, wl, body)
	}
	if err != nil {
		// Whatever state the connection is in, the pool drops it.
		_ = c.Conn().Close(context.Background())
	}
	return body, err
}

// rawRead sends BEGIN READ ONLY, the settings, the main statement,
// COMMIT and pgrest's session reset as one pipeline and returns the body
// column, appended to body.
func rawRead(ctx context.Context, pg *pgconn.PgConn, wl *workload, body []byte) ([]byte, error) {
	body, _, err := rawPipeline(ctx, pg, beginReadOnlyName, wl, body)
	return body, err
}

// rawWrite is pgrest's read-write transaction for a write without checks:
// BEGIN READ WRITE, the settings, the main statement, COMMIT and the
// session reset as one pipeline, one round trip, as pgrest sends it. The
// main statement's result must show the row written.
func rawWrite(ctx context.Context, pg *pgconn.PgConn, wl *workload, body []byte) ([]byte, error) {
	body, written, err := rawPipeline(ctx, pg, beginReadWriteName, wl, body)
	if err == nil && !written {
		err = fmt.Errorf("%s: the write changed no row", wl.name)
	}
	return body, err
}

// rawPipeline sends the transaction pgrest sends for wl, every statement
// prepared: begin, the settings, the main statement, COMMIT, then
// sessionReset, one Sync.
func rawPipeline(ctx context.Context, pg *pgconn.PgConn, begin string, wl *workload, body []byte) ([]byte, bool, error) {
	p := pg.StartPipeline(ctx)
	p.SendQueryPrepared(begin, nil, nil, nil)
	p.SendQueryPrepared(settingsName, wl.settings, nil, nil)
	p.SendQueryPrepared(wl.mainName, wl.mainArgs, nil, nil)
	p.SendQueryPrepared(commitName, nil, nil, nil)
	for i := range sessionReset {
		p.SendQueryPrepared(resetNames[i], nil, nil, nil)
	}
	return readPipeline(p, 4+len(sessionReset), body, wl.stream)
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
