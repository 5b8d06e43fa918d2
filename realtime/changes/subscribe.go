package changes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgrest/caddy-pgrest/executor"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// maxInValues is Realtime's limit on an in filter's list
// (realtime.subscription_check_filters).
const maxInValues = 100

// Subscribe validates specs as Supabase Realtime does when it stores a
// subscription (realtime.subscription_check_filters), registers deliver,
// and returns each spec with its id. Refusals are *SubscribeError with
// Realtime's text: a filter it cannot parse, a table that does not
// exist or is not in the publication ("Please check Realtime is
// enabled..."), a filter on a column the role cannot read or with a
// value the column's type refuses ("An exception happened..."). Unlike
// Realtime, a table the role may not read at all is refused here too,
// with PostgreSQL's permission error, rather than answered later with
// "Error 401: Unauthorized" on each change.
func (f *Feed) Subscribe(ctx context.Context, who Identity, specs []Spec, deliver func(Delivery)) (*Subscription, []Bound, error) {
	return f.SubscribeFrom(ctx, who, specs, Position{}, deliver)
}

// SubscribeFrom is Subscribe for a client that resumes after position
// from (the ResumeAt of its last subscription; zero for none): it is
// first delivered the changes after from that the replay window holds,
// authorized as who now, then the live ones, none at or before from.
func (f *Feed) SubscribeFrom(ctx context.Context, who Identity, specs []Spec, from Position, deliver func(Delivery)) (*Subscription, []Bound, error) {
	var bound []boundSpec
	bounds := make([]Bound, 0, len(specs))
	for _, spec := range specs {
		id := f.nextID.Add(1)
		bs, err := f.bind(ctx, who, spec, id)
		if err != nil {
			return nil, nil, err
		}
		bound = append(bound, bs...)
		bounds = append(bounds, Bound{ID: id, Spec: spec})
	}
	s := newSubscription(f, who, bound, deliver)
	s.skip = from
	s.replaying = !from.IsZero()
	replay, ok := f.register(s)
	if !ok {
		s.end(ErrFeedClosed)
		return nil, nil, ErrFeedClosed
	}
	if s.replaying {
		f.replayTo(ctx, s, replay)
	}
	return s, bounds, nil
}

// bind checks one spec and returns what the feed matches it by: the spec
// itself, or one per table when a wildcard spec has filters (each
// table's column types give the filter values their meaning).
func (f *Feed) bind(ctx context.Context, who Identity, spec Spec, id uint32) ([]boundSpec, error) {
	event := "*"
	switch e := strings.ToUpper(spec.Event); e {
	case "INSERT", "UPDATE", "DELETE":
		event = e
	}
	schema, table := spec.Schema, spec.Table
	if schema == "" {
		schema = "public"
	}
	if table == "" {
		table = "*"
	}
	filters, err := parseFilter(spec.Filter)
	if err != nil {
		return nil, &SubscribeError{Message: err.Error()}
	}
	desc := describe(event, schema, table, filters)
	tables, err := f.publishedTables(ctx, schema, table)
	if err != nil {
		return nil, exception(desc, err)
	}
	if len(tables) == 0 {
		return nil, &SubscribeError{Message: "Unable to subscribe to changes with given parameters. " +
			"Please check Realtime is enabled for the given connect parameters: " + desc}
	}
	var out []boundSpec
	for _, t := range tables {
		fs, err := f.checkFilters(ctx, who, t, filters)
		if err != nil {
			return nil, exception(desc, err)
		}
		if len(filters) == 0 || (schema != "*" && table != "*") {
			return []boundSpec{{id: id, event: event, schema: schema, table: table, filters: fs}}, nil
		}
		out = append(out, boundSpec{id: id, event: event, schema: t.schema, table: t.table, filters: fs})
	}
	return out, nil
}

// exception is Realtime's reply when storing the subscription raised.
func exception(desc string, err error) *SubscribeError {
	return &SubscribeError{Message: "Unable to subscribe to changes with given parameters. " +
		"An exception happened so please check your connect parameters: " + desc + ". Exception: " + postgrexMessage(err)}
}

// postgrexMessage renders a database error as Postgrex's
// Exception.message does: ERROR 22P02 (invalid_text_representation)
// invalid input syntax for type integer: "hey".
func postgrexMessage(err error) string {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err.Error()
	}
	name := conditionNames[pgErr.Code]
	if name == "" {
		name = pgErr.Code
	}
	return fmt.Sprintf("%s %s (%s) %s", pgErr.Severity, pgErr.Code, name, pgErr.Message)
}

// conditionNames are PostgreSQL's condition names of the errors a
// subscription can meet (Appendix A of its manual).
var conditionNames = map[string]string{
	"P0001": "raise_exception",
	"22P02": "invalid_text_representation",
	"22003": "numeric_value_out_of_range",
	"22007": "invalid_datetime_format",
	"22008": "datetime_field_overflow",
	"22001": "string_data_right_truncation",
	"22023": "invalid_parameter_value",
	"42501": "insufficient_privilege",
	"42704": "undefined_object",
	"42P01": "undefined_table",
	"3F000": "invalid_schema_name",
}

// publishedTable is a table of the publication.
type publishedTable struct {
	id            uint32
	schema, table string
}

// publishedTables are the tables of the publication a spec names, "*"
// standing for any schema or table, as Realtime's subscription insert
// selects them from pg_publication_tables.
func (f *Feed) publishedTables(ctx context.Context, schema, table string) ([]publishedTable, error) {
	rows, err := f.pool.Query(ctx, `select p.schemaname::text, p.tablename::text, c.oid::int8
from pg_catalog.pg_publication_tables p
join pg_catalog.pg_namespace n on n.nspname = p.schemaname
join pg_catalog.pg_class c on c.relnamespace = n.oid and c.relname = p.tablename
where p.pubname = $1 and ($2 = '*' or p.schemaname = $2) and ($3 = '*' or p.tablename = $3)
order by 1, 2`, f.cfg.Publication, schema, table)
	if err != nil {
		return nil, err
	}
	var (
		out  []publishedTable
		t    publishedTable
		oid  int64
		s, n string
	)
	_, err = pgx.ForEachRow(rows, []any{&s, &n, &oid}, func() error {
		t = publishedTable{id: uint32(oid), schema: s, table: n}
		out = append(out, t)
		return nil
	})
	return out, err
}

// checkFilters checks a spec's filters against one table as the role
// sees it, and gives each value its canonical JSON: the value run
// through the column type's input function and to_jsonb, in UTC, as the
// feed renders the rows it compares it with.
func (f *Feed) checkFilters(ctx context.Context, who Identity, t publishedTable, filters []filter) ([]filter, error) {
	priv, err := columnPrivileges(ctx, f.pool, &relation{id: t.id}, []string{who.Role})
	if err != nil {
		return nil, err
	}
	readable := priv[who.Role]
	if len(readable) == 0 {
		return nil, &pgconn.PgError{Severity: "ERROR", Code: "42501",
			Message: "permission denied for table " + t.table}
	}
	if len(filters) == 0 {
		return nil, nil
	}
	// The values go through the columns' types' input functions (a
	// domain's CHECK may call any function): the connection goes back
	// with the executor's session reset.
	var out []filter
	err = executor.InRolledBackTx(ctx, f.pool, func(tx pgx.Tx) (err error) {
		out, err = canonicalFilters(ctx, tx, t, filters, readable)
		return err
	})
	return out, err
}

// canonicalFilters is checkFilters' work in its transaction.
func canonicalFilters(ctx context.Context, tx pgx.Tx, t publishedTable, filters []filter, readable map[string]bool) ([]filter, error) {
	if _, err := tx.Exec(ctx, "select set_config('TimeZone', 'UTC', true)"); err != nil {
		return nil, err
	}
	canonSQL := sqltext.Fmt(`select to_jsonb(r) -> $2 from jsonb_array_elements($1::jsonb) with ordinality as e(v, n),
jsonb_populate_record(null::%s, e.v) r order by e.n`, sqltext.Qualified(t.schema, t.table)).String()
	out := make([]filter, len(filters))
	for i, fl := range filters {
		if !readable[fl.Column] {
			return nil, &pgconn.PgError{Severity: "ERROR", Code: "P0001", Message: "invalid column for filter " + fl.Column}
		}
		if fl.Op == "in" && len(fl.Values) > maxInValues {
			return nil, &pgconn.PgError{Severity: "ERROR", Code: "P0001", Message: "too many values for `in` filter. Maximum 100"}
		}
		objs := make([]map[string]string, len(fl.Values))
		for j, v := range fl.Values {
			objs[j] = map[string]string{fl.Column: v}
		}
		arg, _ := json.Marshal(objs)
		rows, err := tx.Query(ctx, canonSQL, string(arg), fl.Column)
		if err != nil {
			return nil, err
		}
		var raw []byte
		_, err = pgx.ForEachRow(rows, []any{&raw}, func() error {
			fl.canon = append(fl.canon, jsonValue{raw: append([]byte(nil), raw...)})
			return nil
		})
		if err != nil {
			return nil, err
		}
		out[i] = fl
	}
	return out, nil
}
