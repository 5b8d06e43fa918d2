package executor

import (
	"math"
	"strconv"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// A request's checks on its main statement's result (a singular response,
// Prefer: max-affected with handling=strict, a PUT that matched its key)
// all bound the number of rows, page_total. They are declared as ranges,
// so that one description serves both sides of the decision:
//
//   - pgrest builds the error response from the main statement's rows, the
//     first failed check in order, as PostgREST reports it;
//   - the guard statement, pipelined after the main statement, raises an
//     error in the database when page_total lies outside every range's
//     intersection, so that a failed check aborts the transaction before
//     its COMMIT is executed, in the same round trip.
//
// A value outside the intersection is outside at least one range, and a
// value inside it is inside all of them: the two sides cannot disagree.

// pageCheck holds page_total to [min, max]; fail is the error when it
// does not.
type pageCheck struct {
	min, max int64
	fail     func(pageTotal int64) error
}

// pageChecks are a request's checks, in the order their errors take
// precedence.
type pageChecks []pageCheck

// check returns the error of the first check pageTotal fails, if any.
func (cs pageChecks) check(pageTotal int64) error {
	for _, c := range cs {
		if pageTotal < c.min || pageTotal > c.max {
			return c.fail(pageTotal)
		}
	}
	return nil
}

// bounds is the range that passes every check (empty, lo > hi, when no
// value does).
func (cs pageChecks) bounds() (lo, hi int64) {
	lo, hi = math.MinInt64, math.MaxInt64
	for _, c := range cs {
		lo, hi = max(lo, c.min), min(hi, c.max)
	}
	return lo, hi
}

// singularCheck is Accept: application/vnd.pgrst.object: exactly one row
// (PGRST116).
func singularCheck() pageCheck {
	return pageCheck{min: 1, max: 1, fail: func(n int64) error { return apierr.Singularity(n) }}
}

// maxAffectedCheck is Prefer: handling=strict, max-affected=n (PGRST124).
func maxAffectedCheck(n int64) pageCheck {
	return pageCheck{min: math.MinInt64, max: n, fail: func(n int64) error { return apierr.MaxAffectedViolation(n) }}
}

// putMatchCheck is a PUT whose body matched the URL's key: one row put
// (PGRST115; two rows are refused by ON CONFLICT itself).
func putMatchCheck() pageCheck {
	return pageCheck{min: 1, max: math.MaxInt64, fail: func(int64) error { return apierr.PutMatchingPK() }}
}

// guardSQL fails the transaction when the page_total the main statement
// recorded (sqlgen's RecordPageTotal) lies outside [$1, $2]. The error is
// a cast of a text that names the failure to bigint, which fails at run
// time only: the text is built from current_setting, a stable function,
// so the planner cannot fold the expression into a constant even in a
// custom plan, where $1 and $2 are constants (a constant error expression
// is folded, and raised, at plan time, taken branch or not). Which check
// failed is not the guard's business: pgrest tells a guard's failure from
// any other error by the statement it came from, and the main statement's
// rows, which arrive first, say which check failed.
const guardSQL = "select case when pgrst_guard.n between $1 and $2 then pgrst_guard.n " +
	"else ('pgrest: ' || pgrst_guard.n || ' rows fail the request''s checks; the transaction rolls back')::bigint end " +
	"from (select pg_catalog.current_setting('pgrst.page_total')::bigint) as pgrst_guard(n)"

// guardStatement is the guard of checks.
func guardStatement(checks pageChecks) sqlgen.Statement {
	lo, hi := checks.bounds()
	return sqlgen.Statement{SQL: sqltext.Const(guardSQL), Args: [][]byte{
		[]byte(strconv.FormatInt(lo, 10)), []byte(strconv.FormatInt(hi, 10))}}
}

// guardFailure is the error of the guard statement: a check failed and
// the transaction rolled back. The main statement's result came before it.
type guardFailure struct{ err error }

func (e *guardFailure) Error() string { return "a check of the result failed: " + e.err.Error() }
func (e *guardFailure) Unwrap() error { return e.err }

// txSpecFor is the transaction of statements, the last of which is the
// main statement, as role. It is decided up front, its end pipelined with
// the rest, when nothing remains to be decided after the main statement: a
// read-only transaction (its checks run after the fact, on a transaction
// that wrote nothing), one that rolls back anyway (db_tx_end, Prefer:
// tx=rollback), one without checks, and one whose main statement records
// page_total, which a guard then checks in SQL. Only a read-write
// transaction with checks on a main statement that records nothing is
// decided in pgrest, in a second round trip.
// The spec is kept in st.
func (e *Executor) txSpecFor(st *txStorage, statements []sqlgen.Statement, role string, commit bool, opts txOptions) *txSpec {
	spec := &st.spec
	*spec = txSpec{readOnly: opts.readOnly, statements: statements, role: role, commit: commit}
	main := statements[len(statements)-1]
	guarded := !opts.readOnly && commit && len(opts.checks) > 0 && main.RecordsPageTotal
	if guarded {
		g := guardStatement(opts.checks)
		spec.guard = &g
	}
	spec.decided = opts.readOnly || !commit || len(opts.checks) == 0 || guarded
	return spec
}

// guardFailed is the response to a failed guard: the main statement's
// result, in results, says which check failed, and the same error as a
// check in pgrest would give, after the same reading of the result. A
// guard error that no check explains (a cancel, a timeout that hit the
// guard) is returned as it is; either way the transaction rolled back.
func guardFailed(results []*txResult, checks pageChecks, err error) error {
	if len(results) == 0 || results[len(results)-1] == nil {
		return err
	}
	out, oerr := resultOutput(results[len(results)-1])
	if oerr != nil {
		return oerr
	}
	if cerr := checks.check(out.pageTotal); cerr != nil {
		return cerr
	}
	return err
}
