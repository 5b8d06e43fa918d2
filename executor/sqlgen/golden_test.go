package sqlgen_test

// Golden tests of the SQL pgrest generates for reads. Each case is a
// request (path with query string, the headers a read depends on, and the
// configuration); the test runs it through the same pipeline as the
// executor (apirequest.ParseQuery, apirequest.Negotiate, plan.BuildRead,
// sqlgen.Read) against a schema cache made by schemacache.Build, and compares
// the statements with testdata/golden/<name>.golden. After a deliberate
// change to the SQL, regenerate the files and review the diff:
//
//	go test ./executor/sqlgen/ -run Golden -update
//
// Every case also checks the properties that make the SQL safe whatever
// the request holds: the only words outside quoted identifiers are
// sqlgen's own keywords and functions and sqltext's keyword type names,
// the only string literals are sqlgen's own constants, no text of the
// request (value, JSON key, language, cast, alias, name) appears outside a
// quoted identifier, and every filter value, JSON key and text search
// language travels as a bind argument. goldenRefusals are requests whose
// casts must stop before any SQL is made.

import (
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the generated SQL")

// goldenCase is one request.
type goldenCase struct {
	name string
	// method is GET unless set (HEAD).
	method string
	// target is the path and query string: /relation?query.
	target string
	// Headers the read depends on.
	accept, rangeHeader, prefer string
	// Configuration.
	maxRows    int64
	aggregates bool
}

var goldenCases = []goldenCase{
	// Reading and selecting.
	{name: "plain_read", target: "/clients"},
	{name: "select_list", target: "/projects?select=id,name,client_id"},
	{name: "alias_and_cast", target: "/projects?select=project_id:id,budget::text,label:name::varchar"},
	{name: "cast_keyword_aliases", target: "/projects?select=id::int,client_id::BIGINT,budget::numeric,name::char,done:id::boolean"},
	{name: "cast_arrays", target: "/tasks?select=id::int[],tags::text[],tags::varchar[][]"},
	{name: "cast_schema_qualified", target: "/projects?select=name::public.mytype,data::pg_catalog.jsonb,budget::api.Money[]"},
	{name: "json_path_select", target: "/projects?select=id,data->owner->>email,first_tag:data->tags->0,data->tags->>1,data->>-1"},
	{name: "json_path_filter_and_order", target: "/projects?select=id,name&data->>color=eq.crimson&data->size->>unit=in.(cm,mm)&order=data->priority.desc.nullslast,id"},
	{name: "empty_select", target: "/clients?select="},

	// Filters, one family each.
	{name: "filter_comparison", target: "/tasks?select=id&id=gte.10&id=lt.20&name=neq.archived&project_id=eq.7"},
	{name: "filter_pattern", target: "/tasks?select=id&name=like.*urgent*&description=ilike.*Bug%25Fix*&name=match.^T[0-9]%2B$&description=imatch.wontfix"},
	{name: "filter_in_with_quotes", target: `/clients?select=id&name=in.("Acme,%20Inc.","O'Brien%20\"Bros\"",plain,"back\\slash")`},
	{name: "filter_in_empty", target: "/clients?select=id&name=in.()&id=not.in.()"},
	{name: "filter_is", target: "/tasks?select=id&done=is.false&description=is.null&project_id=not.is.null&name=isdistinct.draft"},
	{name: "filter_fts_language", target: "/tasks?select=id&description=fts(english).cat%20%26%20dog&name=plfts.quick%20fox&description=wfts(french).chat%20-chien&name=phfts(simple).lazy%20dog"},
	{name: "filter_any_all", target: "/tasks?select=id&name=like(any).{a*,*z}&id=gt(all).{3,5}&name=eq(any).{x,y}"},
	{name: "filter_array_ops", target: "/tasks?select=id&tags=cs.{red,green}&tags=cd.{red,green,blue}&tags=ov.{urgent}"},
	{name: "filter_not", target: "/tasks?select=id&name=not.eq.spam&id=not.in.(4,8)&description=not.like.*draft*"},
	{name: "filter_or_and_nested", target: "/tasks?select=id&or=(done.is.true,and(id.gt.100,name.like.*x*),not.or(project_id.eq.3,project_id.eq.4))&not.and=(name.eq.a,description.eq.b)"},

	// Embedding.
	{name: "embed_many_to_one", target: "/projects?select=id,name,clients(id,name)"},
	{name: "embed_one_to_many", target: "/clients?select=id,projects(id,name)"},
	{name: "embed_many_to_many", target: "/projects?select=id,users(id,first_name)"},
	{name: "embed_one_to_one", target: "/users?select=id,user_profiles(bio)"},
	{name: "embed_one_to_one_parent", target: "/user_profiles?select=bio,users(first_name)"},
	{name: "embed_self", target: "/employees?select=name,manager:manager_id(name),reports:employees(name)"},
	{name: "embed_hints_two_fks", target: "/orders?select=id,billing:addresses!billing_address_id(city),shipping:addresses!orders_shipping_address_id_fkey(city)"},
	{name: "embed_nested", target: "/clients?select=name,projects(name,tasks(name,done))&projects.tasks.done=is.false"},
	{name: "embed_computed_relationship", target: "/projects?select=id,open_tasks(id,name)&open_tasks.order=id"},
	{name: "embed_inner", target: "/projects?select=id,clients!inner(name)&clients.name=eq.Acme"},
	{name: "embed_inner_to_many", target: "/projects?select=id,tasks!inner(id)&tasks.done=is.true"},
	{name: "embed_spread", target: "/projects?select=id,...clients(client_name:name)"},
	{name: "embed_spread_star", target: "/projects?select=id,...clients(*)"},
	{name: "embed_spread_nested", target: "/tasks?select=id,...projects(project:name,...clients(client:name),members:users(first_name))"},
	{name: "embed_spread_to_many", target: "/clients?select=name,...projects(codes:code,...tasks(task:name),clients(name))&projects.order=id&projects.limit=2"},
	{name: "embed_spread_to_many_star_inner", target: "/clients?select=name,...projects!inner(*)&projects=not.is.null"},
	{name: "embed_spread_to_many_grouped", aggregates: true, target: "/clients?select=count(),...projects(code)"},
	{name: "embed_empty", target: "/projects?select=id,clients!inner()&clients.name=eq.Acme"},
	{name: "embed_empty_to_many", target: "/clients?select=name,projects()&projects=not.is.null"},
	{name: "embed_filter_order_limit", target: "/projects?select=id,tasks(id,name)&tasks.done=is.false&tasks.order=id.desc&tasks.limit=3&tasks.offset=1&tasks.or=(name.like.a*,name.like.b*)"},
	{name: "embed_null_filters", target: "/projects?select=id,clients(name),tasks(id)&tasks=not.is.null&clients=is.null"},
	{name: "related_order", target: "/projects?select=id,clients(name)&order=clients(name).desc.nullsfirst,id.asc"},

	// Computed columns.
	{name: "computed_column", target: "/users?select=id,full_name&full_name=ilike.*smith*&order=full_name"},

	// Aggregates.
	{name: "aggregates_grouped", aggregates: true, target: "/projects?select=client_id,total:budget.sum(),budget::int.avg()::int,count()"},
	{name: "aggregates_cast", aggregates: true, target: "/projects?select=n:count()::int,budget::numeric.sum()::text,id::int.max()::public.big"},
	{name: "aggregates_in_embed", aggregates: true, target: "/clients?select=name,projects(budget.max(),count())"},
	{name: "aggregates_json_path_key", aggregates: true, target: "/projects?select=data->>color,count()"},
	{name: "aggregates_json_path_order", aggregates: true, target: "/projects?select=data->>color,count()&order=data->>color.desc"},
	{name: "aggregates_with_embed", aggregates: true, target: "/projects?select=clients(name),budget.sum()"},
	{name: "aggregates_with_spread", aggregates: true, target: "/projects?select=...clients(name),budget.sum()"},
	{name: "aggregates_in_spread", aggregates: true, target: "/tasks?select=status,...projects(total:budget::int.sum()::text,count(),...clients(country,id.max()))"},
	{name: "aggregates_in_spread_grouped_json", aggregates: true, target: "/tasks?select=count(),...projects(clients(name),...users(first_name))"},
	{name: "aggregates_with_star", aggregates: true, target: "/clients?select=*,count()"},
	{name: "aggregates_with_spread_star", aggregates: true, target: "/projects?select=...clients(*),count()"},
	{name: "aggregates_count_exact", aggregates: true, prefer: "count=exact", target: "/projects?select=data->>color,clients(name),count()"},

	// Counts and pages.
	{name: "count_exact", prefer: "count=exact", target: "/tasks?select=id,projects(name)&done=is.false&limit=10"},
	{name: "count_exact_inner_embed", prefer: "count=exact", target: "/tasks?select=id,projects!inner(name)&projects.name=like.Ops*&projects=not.is.null&limit=10"},
	{name: "count_planned", prefer: "count=planned", target: "/tasks?select=id&project_id=eq.7"},
	{name: "count_planned_embed_null_tests", prefer: "count=planned",
		target: "/clients?select=id,projects(name,tasks()),users:projects(id)&projects.tasks=not.is.null&or=(projects.is.null,users.not.is.null)"},
	{name: "count_exact_nested_inner_many_to_many", prefer: "count=exact",
		target: "/users?select=id,projects!inner(id,clients!inner(id))&projects.clients.id=eq.1"},
	{name: "count_estimated", prefer: "count=estimated", maxRows: 1000, target: "/tasks?select=id&done=is.false"},
	{name: "count_estimated_no_max_rows", prefer: "count=estimated", target: "/tasks?select=id"},
	{name: "limit_offset", target: "/tasks?select=id&order=id&limit=10&offset=20"},
	{name: "range_header", rangeHeader: "5-9", target: "/tasks?select=id&order=id"},
	{name: "range_header_and_limit", rangeHeader: "0-99", target: "/tasks?select=id&order=id&limit=10&offset=5"},
	{name: "db_max_rows", maxRows: 100, target: "/tasks?select=id&limit=500"},

	// Representations.
	{name: "singular", accept: "application/vnd.pgrst.object+json", target: "/clients?select=id,name&id=eq.1"},
	{name: "csv", accept: "text/csv", target: "/clients?select=id,name"},
	{name: "nulls_stripped", accept: "application/vnd.pgrst.array+json;nulls=stripped", target: "/projects?select=id,clients(name)"},
	{name: "singular_nulls_stripped", accept: "application/vnd.pgrst.object+json;nulls=stripped", target: "/clients?id=eq.1"},
	{name: "head", method: http.MethodHead, rangeHeader: "0-9", prefer: "count=exact", target: "/tasks?select=id&done=is.true"},
}

// readMedia are the representations the executor offers for a read.
var readMedia = []apirequest.MediaType{apirequest.MediaJSON, apirequest.MediaSingleObject, apirequest.MediaCSV}

// goldenResult is what one case produced.
type goldenResult struct {
	query   *apirequest.Query
	main    sqlgen.Statement
	explain *sqlgen.Statement
}

func runCase(t *testing.T, cache *schemacache.Cache, c goldenCase) goldenResult {
	t.Helper()
	method := c.method
	if method == "" {
		method = http.MethodGet
	}
	path, rawQuery, _ := strings.Cut(c.target, "?")
	rel, ok := cache.Relation("api", strings.TrimPrefix(path, "/"))
	if !ok {
		t.Fatalf("%s: no relation %s", c.name, path)
	}
	q, aerr := apirequest.ParseQuery(rawQuery)
	if aerr != nil {
		t.Fatalf("ParseQuery(%q): %s %s %v", rawQuery, aerr.Code, aerr.Message, aerr.Details)
	}
	rep, aerr := apirequest.Negotiate(c.accept, readMedia)
	if aerr != nil {
		t.Fatalf("Negotiate(%q): %s %s", c.accept, aerr.Code, aerr.Message)
	}
	var prefs apirequest.Preferences
	if c.prefer != "" {
		if prefs, aerr = apirequest.ParsePreferences([]string{c.prefer}); aerr != nil {
			t.Fatalf("ParsePreferences(%q): %s", c.prefer, aerr.Message)
		}
	}
	rangeHeader := ""
	if method == http.MethodGet {
		rangeHeader = c.rangeHeader // as the executor: Range counts on GET only
	}
	p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{
		MaxRows: c.maxRows, AggregatesEnabled: c.aggregates, RangeHeader: rangeHeader})
	if aerr != nil {
		t.Fatalf("BuildRead: %s %s %v %s", aerr.Code, aerr.Message, aerr.Details, aerr.Hint)
	}
	main, explain := sqlgen.Read(p, sqlgen.ReadOptions{
		Representation: rep, Count: prefs.Count, MaxRows: c.maxRows, NoBody: method == http.MethodHead})
	return goldenResult{query: q, main: main, explain: explain}
}

func TestGolden(t *testing.T) {
	cache := schemacache.Build(goldenCatalog())
	dir := filepath.Join("testdata", "golden")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	names := map[string]bool{}
	for _, c := range goldenCases {
		if names[c.name] {
			t.Fatalf("two cases named %s", c.name)
		}
		names[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			res := runCase(t, cache, c)
			checkSafety(t, res)
			checkGolden(t, filepath.Join(dir, c.name+".golden"), renderGolden(c, res))
		})
	}
	checkNoOrphanGoldens(t, dir, names)
}

// checkGolden compares got with the golden file, or writes it with
// -update.
func checkGolden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the generated SQL (after a deliberate change, run with -update and review the diff)\n--- got\n%s\n--- want\n%s",
			file, got, want)
	}
}

// checkNoOrphanGoldens fails for a golden file in dir without a case
// in names: a case that was renamed or deleted. -update deletes it.
func checkNoOrphanGoldens(t *testing.T, dir string, names map[string]bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".golden")
		if names[name] {
			continue
		}
		if *update {
			if err := os.Remove(f); err != nil {
				t.Error(err)
			}
			continue
		}
		t.Errorf("%s has no case (run with -update to delete it)", f)
	}
}

// attackCasts are casts that try to be SQL; unknown is a pseudo-type.
var attackCasts = []string{
	"text array as x from announcements where false union all select setconfig from pg_db_role_setting union all select null",
	"text $$ as x from pg_db_role_setting $$",
	"text$1",
	"text--",
	"text;select 1",
	`"text"`,
	"varchar(10)",
	"unknown",
	"1int",
	"a.b.c",
}

// TestCastsThatAreNotTypeNamesMakeNoSQL checks that a cast which is not a
// type name stops the request with a 400 before any SQL exists: at the
// parser when it holds characters a type name cannot, and at the planner
// for what is left. The planner refuses every one of them on its own too,
// as if the parser had let it through.
func TestCastsThatAreNotTypeNamesMakeNoSQL(t *testing.T) {
	cache := schemacache.Build(goldenCatalog())
	rel, _ := cache.Relation("api", "projects")
	for _, cast := range attackCasts {
		t.Run(cast, func(t *testing.T) {
			for _, rawQuery := range []string{
				"select=name::" + url.QueryEscape(cast),
				"select=budget.sum()::" + url.QueryEscape(cast),
			} {
				aerr := refusal(cache, rel, rawQuery, nil)
				if aerr == nil || aerr.Status != http.StatusBadRequest || aerr.Code != "PGRST100" {
					t.Errorf("%s: got %+v, want a 400 PGRST100", rawQuery, aerr)
				}
			}
			for _, set := range []func(*apirequest.SelectItem){
				func(it *apirequest.SelectItem) { it.Cast = cast },
				func(it *apirequest.SelectItem) { it.AggregateCast = cast },
			} {
				aerr := refusal(cache, rel, "select=name.max()", set)
				if aerr == nil || aerr.Status != http.StatusBadRequest || aerr.Code != "PGRST100" {
					t.Errorf("the planner took %q: got %+v, want a 400 PGRST100", cast, aerr)
				}
			}
		})
	}
}

// refusal runs rawQuery, its first select item changed by set, up to the
// plan and returns the error that stopped it; a plan that succeeds is
// rendered and reported as nil.
func refusal(cache *schemacache.Cache, rel *schemacache.Relation, rawQuery string, set func(*apirequest.SelectItem)) *apierr.Error {
	q, aerr := apirequest.ParseQuery(rawQuery)
	if aerr != nil {
		return aerr
	}
	if set != nil {
		set(&q.Select[0])
	}
	p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{AggregatesEnabled: true})
	if aerr != nil {
		return aerr
	}
	sqlgen.Read(p, sqlgen.ReadOptions{})
	return nil
}

// renderGolden is the content of a golden file: the request, then each
// statement, pretty-printed, with its arguments.
func renderGolden(c goldenCase, res goldenResult) string {
	var b strings.Builder
	method := c.method
	if method == "" {
		method = http.MethodGet
	}
	fmt.Fprintf(&b, "# %s %s\n", method, c.target)
	for _, h := range []struct{ name, value string }{
		{"Accept", c.accept}, {"Range", c.rangeHeader}, {"Prefer", c.prefer},
	} {
		if h.value != "" {
			fmt.Fprintf(&b, "# %s: %s\n", h.name, h.value)
		}
	}
	if c.maxRows > 0 {
		fmt.Fprintf(&b, "# db_max_rows = %d\n", c.maxRows)
	}
	if c.aggregates {
		b.WriteString("# db_aggregates_enabled = true\n")
	}
	writeStatement := func(title string, st sqlgen.Statement) {
		fmt.Fprintf(&b, "\n-- %s\n%s\n", title, formatSQL(st.SQL.String()))
		if len(st.Args) == 0 {
			fmt.Fprintf(&b, "\n-- %s args: none\n", title)
			return
		}
		fmt.Fprintf(&b, "\n-- %s args\n", title)
		for i, a := range st.Args {
			if a == nil {
				fmt.Fprintf(&b, "$%d = NULL\n", i+1)
				continue
			}
			fmt.Fprintf(&b, "$%d = %s\n", i+1, strconv.Quote(string(a)))
		}
	}
	writeStatement("main", res.main)
	if res.explain != nil {
		writeStatement("explain", *res.explain)
	}
	return b.String()
}

// clauseWords start a new line in formatSQL.
var clauseWords = map[string]bool{
	"select": true, "from": true, "where": true, "group": true, "order": true,
	"limit": true, "offset": true, "left": true, "inner": true, "join": true,
}

// formatSQL breaks a statement into lines at its clauses (select, from,
// where, group by, order by, limit, offset, joins), indented two spaces per
// open parenthesis, and after a "(" that opens a subquery. It changes only
// whitespace outside quotes, so unformatSQL gives the statement back (the
// test checks that).
func formatSQL(sql string) string {
	var b strings.Builder
	depth := 0
	prev := "" // the previous word outside quotes
	newline := func() {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat("  ", depth))
	}
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; c {
		case '"', '\'':
			j := i + 1
			for j < len(sql) {
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			b.WriteString(sql[i:min(j+1, len(sql))])
			i = j
		case '(':
			depth++
			b.WriteByte(c)
			if w := wordAt(sql, i+1); w == "select" {
				newline()
			}
		case ')':
			depth--
			b.WriteByte(c)
		case ' ':
			w := wordAt(sql, i+1)
			if breaksLine(w, prev) {
				newline()
			} else {
				b.WriteByte(c)
			}
		default:
			if isWordByte(c) && (i == 0 || !isWordByte(sql[i-1])) {
				prev = wordAt(sql, i)
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

// breaksLine says whether word, following prev, starts a clause.
func breaksLine(word, prev string) bool {
	if !clauseWords[word] {
		return false
	}
	switch {
	case word == "from" && prev == "distinct": // is distinct from
		return false
	case word == "join" && (prev == "left" || prev == "inner"):
		return false
	}
	return true
}

var indentRE = regexp.MustCompile(`\n *`)

// unformatSQL undoes formatSQL.
func unformatSQL(s string) string {
	s = regexp.MustCompile(`\(\n *`).ReplaceAllString(s, "(")
	return indentRE.ReplaceAllString(s, " ")
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// wordAt is the word starting at i, lower-cased ("" if none).
func wordAt(s string, i int) string {
	j := i
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	return strings.ToLower(s[i:j])
}

// sqlgenWords are the bare words sqlgen writes: keywords, its functions
// (schema-qualified with pg_catalog), the types of its own casts and the
// correlation names of its fixed clauses. Anything else outside quotes
// would be a name or value spliced unquoted.
var sqlgenWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		with as select from where and or not is null true false unknown distinct
		left inner join lateral on group by order asc desc nulls first last limit offset exists
		any all like ilike explain format json
		pg_catalog count sum avg min max coalesce json_agg jsonb_agg bool_or row_to_json json_strip_nulls
		string_agg json_object_keys chr substring length
		to_tsquery to_tsvector plainto_tsquery phraseto_tsquery websearch_to_tsquery
		text integer bigint jsonb regconfig
		smallint real float boolean decimal dec numeric char character varchar nchar bit time timestamp interval
		pgrst_source _pgrst_t _pgrst_c hh s a k r
		total_result_set page_total body response_headers response_status current_setting nullif`) {
		sqlgenWords[w] = true
	}
}

// sqlgenLiterals are the string literals sqlgen writes.
var sqlgenLiterals = map[string]bool{`'[]'`: true, `'null'`: true, `','`: true, `''`: true,
	`'response.headers'`: true, `'response.status'`: true}

// sqlgenNumbers are the numbers sqlgen writes itself ($n placeholders
// aside): CSV's chr(10) and substring bounds, JSON's ->0 of the singular
// object, count queries' "select 1".
var sqlgenNumbers = map[string]bool{"0": true, "1": true, "2": true, "10": true}

var (
	quotedIdentRE = regexp.MustCompile(`"(?:[^"]|"")*"`)
	literalRE     = regexp.MustCompile(`'(?:[^']|'')*'`)
	placeholderRE = regexp.MustCompile(`\$[0-9]+`)
	tokenRE       = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_$]*|[0-9]+`)
	wordRE        = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_$]*|[0-9]+)$`)
)

// textStatement is a statement's text and arguments, for the safety
// check; its own test builds unsafe ones, which sqltext cannot make.
type textStatement struct {
	SQL  string
	Args [][]byte
}

func asText(st sqlgen.Statement) textStatement { return textStatement{st.SQL.String(), st.Args} }

// checkSafety fails the test on every problem safetyProblems finds.
func checkSafety(t *testing.T, res goldenResult) {
	t.Helper()
	stmts := []textStatement{asText(res.main)}
	if res.explain != nil {
		stmts = append(stmts, asText(*res.explain))
	}
	for _, st := range stmts {
		if got := unformatSQL(formatSQL(st.SQL)); got != st.SQL {
			t.Errorf("formatSQL is not reversible:\n got %s\nwant %s", got, st.SQL)
		}
	}
	for _, p := range safetyProblems(res.query, stmts) {
		t.Error(p)
	}
}

// safetyProblems lists what of the request reaches the SQL text other
// than as a quoted identifier, a cast the parser validated, or a bind
// argument: string literals that are not sqlgen's, bare words that are
// not sqlgen's keywords, values in the text, values missing from the
// arguments.
func safetyProblems(q *apirequest.Query, stmts []textStatement) []string {
	var problems []string
	valueSet := map[string]bool{}    // filter values, JSON keys, languages: bound
	requestText := map[string]bool{} // casts, aliases, names: never bare
	collectSelect(q.Select, requestText, valueSet)
	for i := range q.Filters {
		collectFilter(&q.Filters[i], valueSet)
	}
	for i := range q.Logic {
		collectTree(&q.Logic[i], valueSet)
	}
	for _, o := range q.Order {
		for _, term := range o.Terms {
			collectPath(term.Field, valueSet)
		}
	}
	values := make([]string, 0, len(valueSet))
	for v := range valueSet {
		values = append(values, v)
	}
	slices.Sort(values)
	for v := range valueSet {
		requestText[v] = true
	}
	texts := make([]string, 0, len(requestText))
	for v := range requestText {
		texts = append(texts, v)
	}
	slices.Sort(texts)

	for _, st := range stmts {
		// Outside quoted identifiers and placeholders, only sqlgen's
		// literals, words and numbers.
		rest := quotedIdentRE.ReplaceAllString(st.SQL, " ")
		for _, lit := range literalRE.FindAllString(rest, -1) {
			if !sqlgenLiterals[lit] {
				problems = append(problems, fmt.Sprintf("string literal %s in the SQL: values must be bind arguments", lit))
			}
		}
		rest = literalRE.ReplaceAllString(rest, " ")
		rest = placeholderRE.ReplaceAllString(rest, " ")
		if strings.ContainsAny(rest, `"'`) {
			problems = append(problems, "unbalanced quotes in "+st.SQL)
		}
		var words []string
		for _, w := range tokenRE.FindAllString(rest, -1) {
			lw := strings.ToLower(w)
			words = append(words, lw)
			if !sqlgenWords[lw] && !sqlgenNumbers[lw] {
				problems = append(problems, fmt.Sprintf("bare word %q in the SQL: identifiers must be quoted, values bound", w))
			}
		}
		// Request text may coincide with a word sqlgen writes anyway (a
		// cast to varchar is written as sqltext's own keyword); any other
		// in the text would have been spliced.
		for _, v := range texts {
			// A keyword type's array (varchar[]) is sqltext's keyword too.
			if k := strings.ToLower(strings.TrimRight(v, "[]")); v == "" || sqlgenWords[k] || sqlgenNumbers[v] {
				continue
			}
			// A value made of word characters is one token; any other
			// could only appear as it is.
			if slices.Contains(words, strings.ToLower(v)) || !wordRE.MatchString(v) && strings.Contains(rest, v) {
				problems = append(problems, fmt.Sprintf("request text %q appears in the SQL text", v))
			}
		}
	}
	// Every value is bound somewhere (an in list as one array argument).
	var args []string
	for _, st := range stmts {
		for _, a := range st.Args {
			args = append(args, string(a))
		}
	}
	for _, v := range values {
		if !slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, v) }) {
			problems = append(problems, fmt.Sprintf("value %q is not among the arguments %q", v, args))
		}
	}
	return problems
}

// TestSafetyProblems checks that the golden tests' safety check notices
// what it is there to notice.
func TestSafetyProblems(t *testing.T) {
	q, aerr := apirequest.ParseQuery("select=id,data->>tier&name=eq.crimson&or=(note.like.*x-y*)")
	if aerr != nil {
		t.Fatal(aerr.Message)
	}
	const sel = `select "t"."id" as "id", "t"."data"->>$1::text as "tier" from "api"."t" as "t" where `
	tests := []struct {
		name string
		st   textStatement
		want []string
	}{
		{"everything bound", textStatement{
			SQL:  sel + `"t"."name" = $2 and ("t"."note" like $3)`,
			Args: [][]byte{[]byte("tier"), []byte("crimson"), []byte("%x-y%")},
		}, nil},
		{"a value spliced as a literal", textStatement{
			SQL:  sel + `"t"."name" = 'crimson' and ("t"."note" like $2)`,
			Args: [][]byte{[]byte("tier"), []byte("%x-y%")},
		}, []string{
			"string literal 'crimson' in the SQL: values must be bind arguments",
			`value "crimson" is not among the arguments ["tier" "%x-y%"]`,
		}},
		{"a value and an identifier spliced bare", textStatement{
			SQL:  sel + `name = crimson and ("t"."note" like %x-y%)`,
			Args: [][]byte{[]byte("tier")},
		}, []string{
			`bare word "name" in the SQL: identifiers must be quoted, values bound`,
			`bare word "crimson" in the SQL: identifiers must be quoted, values bound`,
			`bare word "x" in the SQL: identifiers must be quoted, values bound`,
			`bare word "y" in the SQL: identifiers must be quoted, values bound`,
			`request text "%x-y%" appears in the SQL text`,
			`request text "crimson" appears in the SQL text`,
			`value "%x-y%" is not among the arguments ["tier"]`,
			`value "crimson" is not among the arguments ["tier"]`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := safetyProblems(q, []textStatement{tt.st})
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// collectSelect gathers the select's text: JSON keys are values, which
// are bound; casts, aliases, field, relation and hint names are text that
// must reach SQL only quoted (a cast only as sqltext renders a type name).
// TestSafetyProblemsCatchASplicedCast checks that a cast or an alias
// written as the request spelled it is caught, where a checked type name
// is not.
func TestSafetyProblemsCatchASplicedCast(t *testing.T) {
	q, aerr := apirequest.ParseQuery("select=lbl:id::mytype,n:id::int")
	if aerr != nil {
		t.Fatal(aerr.Message)
	}
	checked := textStatement{SQL: `select ("t"."id")::"mytype" as "lbl", ("t"."id")::integer as "n" from "api"."t" as "t"`}
	if got := safetyProblems(q, []textStatement{checked}); got != nil {
		t.Errorf("problems in checked casts: %q", got)
	}
	spliced := textStatement{SQL: `select ("t"."id")::mytype as lbl, ("t"."id")::int as "n" from "api"."t" as "t"`}
	want := []string{
		`bare word "mytype" in the SQL: identifiers must be quoted, values bound`,
		`bare word "lbl" in the SQL: identifiers must be quoted, values bound`,
		`bare word "int" in the SQL: identifiers must be quoted, values bound`,
		`request text "int" appears in the SQL text`,
		`request text "lbl" appears in the SQL text`,
		`request text "mytype" appears in the SQL text`,
	}
	if got := safetyProblems(q, []textStatement{spliced}); !slices.Equal(got, want) {
		t.Errorf("problems:\n got %q\nwant %q", got, want)
	}
}

func collectSelect(items []apirequest.SelectItem, text, values map[string]bool) {
	for _, it := range items {
		for _, t := range []string{it.Cast, it.AggregateCast, it.Alias, it.Field.Name, it.Relation, it.Hint} {
			if t != "" && t != "*" {
				text[t] = true
			}
		}
		collectPath(it.Field, values)
		collectSelect(it.Children, text, values)
	}
}

func collectPath(f apirequest.Field, values map[string]bool) {
	for _, step := range f.JSONPath {
		values[step.Key] = true
	}
}

func collectFilter(f *apirequest.Filter, values map[string]bool) {
	collectPath(f.Field, values)
	if f.Language != "" {
		values[f.Language] = true
	}
	if f.Op == "is" {
		return // a keyword, rendered as one
	}
	if f.Op == "in" {
		if len(f.Values) == 1 && f.Values[0] == "" {
			return // in.(): the empty list
		}
		// An element of the array argument, quoted and escaped.
		esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
		for _, v := range f.Values {
			values[`"`+esc.Replace(v)+`"`] = true
		}
		return
	}
	values[f.Value] = true
}

func collectTree(t *apirequest.LogicTree, values map[string]bool) {
	for _, n := range t.Children {
		if n.Tree != nil {
			collectTree(n.Tree, values)
		} else {
			collectFilter(n.Filter, values)
		}
	}
}

// goldenCatalog is a small project tracker:
//
//	clients 1-n projects 1-n tasks
//	projects n-m users through project_members (composite primary key)
//	users 1-1 user_profiles (its primary key is the foreign key)
//	employees n-1 employees (manager_id)
//	orders n-1 addresses twice (billing_address_id, shipping_address_id)
//
// with the computed column users.full_name and the computed relationship
// projects.open_tasks.
func goldenCatalog() *schemacache.Catalog {
	table := func(name string, cols ...string) *schemacache.Relation {
		r := &schemacache.Relation{Schema: "api", Name: name, Kind: schemacache.KindTable,
			Insertable: true, Updatable: true, Deletable: true}
		for i, c := range cols {
			n, typ, _ := strings.Cut(c, " ")
			r.Columns = append(r.Columns, &schemacache.Column{Name: n, Type: typ, Nullable: true, Position: i + 1})
		}
		return r
	}
	pk := func(tbl string, cols ...string) schemacache.Key {
		return schemacache.Key{Table: schemacache.QualifiedName{Schema: "api", Name: tbl}, Constraint: tbl + "_pkey", Primary: true, Columns: cols}
	}
	fk := func(tbl, col, ref string) schemacache.ForeignKey {
		return schemacache.ForeignKey{
			Constraint: tbl + "_" + col + "_fkey",
			Table:      schemacache.QualifiedName{Schema: "api", Name: tbl}, ForeignTable: schemacache.QualifiedName{Schema: "api", Name: ref},
			Columns: [][2]string{{col, "id"}},
		}
	}
	users := schemacache.QualifiedName{Schema: "api", Name: "users"}
	projects := schemacache.QualifiedName{Schema: "api", Name: "projects"}
	return &schemacache.Catalog{
		ServerVersionNum: 170000,
		Schemas:          []string{"api"},
		Relations: []*schemacache.Relation{
			table("clients", "id integer", "name text"),
			table("projects", "id integer", "name text", "client_id integer", "budget numeric", "data jsonb"),
			table("tasks", "id integer", "name text", "project_id integer", "done boolean", "description text", "tags text[]"),
			table("users", "id integer", "first_name text", "last_name text", "settings jsonb"),
			table("project_members", "project_id integer", "user_id integer", "role text"),
			table("user_profiles", "user_id integer", "bio text"),
			table("employees", "id integer", "name text", "manager_id integer"),
			table("addresses", "id integer", "city text", "street text"),
			table("orders", "id integer", "billing_address_id integer", "shipping_address_id integer", "total numeric"),
		},
		Keys: []schemacache.Key{
			pk("clients", "id"), pk("projects", "id"), pk("tasks", "id"), pk("users", "id"),
			pk("project_members", "project_id", "user_id"), pk("user_profiles", "user_id"),
			pk("employees", "id"), pk("addresses", "id"), pk("orders", "id"),
		},
		ForeignKeys: []schemacache.ForeignKey{
			fk("projects", "client_id", "clients"),
			fk("tasks", "project_id", "projects"),
			fk("project_members", "project_id", "projects"),
			fk("project_members", "user_id", "users"),
			fk("user_profiles", "user_id", "users"),
			fk("employees", "manager_id", "employees"),
			fk("orders", "billing_address_id", "addresses"),
			fk("orders", "shipping_address_id", "addresses"),
		},
		Functions: []*schemacache.Function{
			{
				Schema: "api", Name: "full_name", Params: []schemacache.Param{{Name: "u", Type: "api.users"}},
				ArgRelation: users, Volatility: 's',
				Returns: schemacache.Return{Shape: schemacache.ReturnsScalar, Type: "text"},
			},
			{
				Schema: "api", Name: "open_tasks", Params: []schemacache.Param{{Name: "p", Type: "api.projects"}},
				ArgRelation: projects, Volatility: 's', Rows: 1000,
				Returns: schemacache.Return{Shape: schemacache.ReturnsComposite, Set: true, Type: "SETOF api.tasks",
					RelationSchema: "api", RelationName: "tasks"},
			},
		},
	}
}
