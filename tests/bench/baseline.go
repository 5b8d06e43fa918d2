package main

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
)

// The baselines send the statements pgrest sends. pgrest exports neither
// (and should not, for a benchmark), so they are copied here character for
// character: settingsSQL from executor/settings.go, beginReadOnly from
// executor/runner.go. checkExecutorSQL reads those files at start and
// refuses to run when a copy no longer matches, so the baselines cannot
// drift from pgrest unnoticed. The main statements are not copied: they
// come from pgrest's own parse, plan and SQL generation, run in this
// process against a schema cache loaded from the bench database
// (planWorkloads), with the arguments pgrest binds.
const (
	settingsSQL = `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true), ` +
		`set_config('request.method', $3, true), set_config('request.path', $4, true), ` +
		`set_config('request.headers', $5, true), set_config('request.cookies', $6, true), ` +
		`set_config('search_path', $7, true), ` +
		`(select count(set_config(s.key, s.value, true)) from json_each_text($8::json) s)`
	beginReadOnly = "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY"

	settingsName = "bench_settings"
)

// checkExecutorSQL compares the copies above with the constants in the
// executor's source, found from the working folder up to go.mod.
func checkExecutorSQL() error {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: cannot check the SQL copied from the executor (%v); run from the repository\n", err)
		return nil
	}
	for _, c := range []struct{ file, name, copy string }{
		{"executor/settings.go", "settingsSQL", settingsSQL},
		{"executor/runner.go", "beginReadOnly", beginReadOnly},
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
	return nil
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working folder")
		}
		dir = parent
	}
}

// stringConst evaluates the string constant name declared in file, a
// concatenation of string literals.
func stringConst(file, name string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return "", err
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name != name || i >= len(vs.Values) {
					continue
				}
				if v, ok := literal(vs.Values[i]); ok {
					return v, nil
				}
				return "", fmt.Errorf("%s in %s is no longer a concatenation of string literals", name, file)
			}
		}
	}
	return "", fmt.Errorf("%s: constant %s not found", file, name)
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

// newRawPool is the raw baseline's pool. Each connection prepares the
// settings statement and the main statements once, when it opens. The
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
		if _, err := pg.Prepare(ctx, settingsName, settingsSQL, nil); err != nil {
			return err
		}
		if _, err := pg.Exec(ctx, "begin; set local role "+sqlgen.QuoteIdent(requestRole)).ReadAll(); err != nil {
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

// rawOp is the raw baseline: pgrest's transaction in one pipelined round
// trip, with nothing else around it.
func (e *env) rawOp(wl *workload) op {
	var body []byte
	return func(ctx context.Context) error {
		c, err := e.rawPool.Acquire(ctx)
		if err != nil {
			return err
		}
		defer c.Release()
		body, err = rawTx(ctx, c.Conn().PgConn(), wl, body[:0])
		if err != nil {
			// Whatever state the connection is in, the pool drops it.
			_ = c.Conn().Close(context.Background())
			return err
		}
		return wl.check(body)
	}
}

// rawTx sends BEGIN, the settings, the main statement and COMMIT as one
// pipeline and returns the body column, appended to body.
func rawTx(ctx context.Context, pg *pgconn.PgConn, wl *workload, body []byte) ([]byte, error) {
	p := pg.StartPipeline(ctx)
	p.SendQueryParams(beginReadOnly, nil, nil, nil, nil)
	p.SendQueryPrepared(settingsName, wl.settings, nil, nil)
	p.SendQueryPrepared(wl.mainName, wl.mainArgs, nil, nil)
	p.SendQueryParams("COMMIT", nil, nil, nil, nil)
	if err := p.Sync(); err != nil {
		_ = p.Close()
		return body, err
	}
	const mainIndex = 2
	for i := range 4 {
		res, err := p.GetResults()
		if err != nil {
			_ = p.Close()
			return body, err
		}
		rr, ok := res.(*pgconn.ResultReader)
		if !ok {
			_ = p.Close()
			return body, fmt.Errorf("pipeline result %d: unexpected %T", i, res)
		}
		for rr.NextRow() {
			if i == mainIndex {
				body = append(body, rr.Values()[sqlgen.ColBody]...)
			}
		}
		if _, err := rr.Close(); err != nil {
			_ = p.Close()
			return body, err
		}
	}
	if _, err := p.GetResults(); err != nil { // the Sync
		_ = p.Close()
		return body, err
	}
	return body, p.Close()
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
// statement through pgx.Tx.
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
		for rows.Next() {
			body = append(body, rows.RawValues()[sqlgen.ColBody]...)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		return wl.check(body)
	}
}
