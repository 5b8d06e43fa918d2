package schemacache

import (
	"os"
	"slices"
	"testing"
)

func TestViewTargets(t *testing.T) {
	const a, b = 16385, 36167 // t.a and t.b when the testdata was made
	tests := []struct {
		name string
		file string
		want []targetEntry
	}{
		{
			// create view t.v as select id as "my id", "we ird", 1 as one,
			//   "(x)" as ":resorigtbl" from t.a where id > 0 order by "(x)"
			name: "renamed, escaped and constant columns",
			file: "testdata/rule_renamed.txt",
			want: []targetEntry{
				{resno: 1, origTable: a, origColumn: 1},
				{resno: 2, origTable: a, origColumn: 2},
				{resno: 3},
				{resno: 4, origTable: a, origColumn: 3},
			},
		},
		{
			// create view t.w as select b.id, a."we ird" as w, b.a_id
			//   from t.b join t.a on a.id = b.a_id, (select 1 as k) s
			//   where exists (select 1 from t.a x where x.id = b.id)
			//   group by b.id, a."we ird", b.a_id order by 2
			name: "a join with subqueries, whose own target lists do not count",
			file: "testdata/rule_join.txt",
			want: []targetEntry{
				{resno: 1, origTable: b, origColumn: 1},
				{resno: 2, origTable: a, origColumn: 2},
				{resno: 3, origTable: b, origColumn: 2},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := viewTargets(string(src))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestViewTargetsOfHandWrittenTrees(t *testing.T) {
	tests := []struct {
		name    string
		action  string
		want    []targetEntry
		wantErr bool
	}{
		{"no target list", `({QUERY :commandType 1 :targetList <> :override 0})`, nil, false},
		{"a junk column is reported as junk",
			`({QUERY :targetList ({TARGETENTRY :expr {VAR :varno 1} :resno 2 :resname \<x :ressortgroupref 0 :resorigtbl 7 :resorigcol 3 :resjunk true})})`,
			[]targetEntry{{resno: 2, origTable: 7, origColumn: 3, junk: true}}, false},
		{"an alias named like a field does not shift the fields",
			`({QUERY :targetList ({TARGETENTRY :expr <> :resno 1 :resname :resno :ressortgroupref 0 :resorigtbl 7 :resorigcol 3 :resjunk false})})`,
			[]targetEntry{{resno: 1, origTable: 7, origColumn: 3}}, false},
		{"escaped brackets stay inside their token",
			`({QUERY :rtable ({RANGETBLENTRY :colnames ("a\)b" "c\ d\{")}) :targetList ({TARGETENTRY :resno 1 :resname a\)b :resorigtbl 9 :resorigcol 1 :resjunk false})})`,
			[]targetEntry{{resno: 1, origTable: 9, origColumn: 1}}, false},
		{"a constant's byte list is skipped",
			`({QUERY :jointree {FROMEXPR :quals {CONST :constlen 4 :constvalue 4 [ 1 0 0 0 0 0 0 0 ]}} :targetList ({TARGETENTRY :resno 1 :resorigtbl 5 :resorigcol 2})})`,
			[]targetEntry{{resno: 1, origTable: 5, origColumn: 2}}, false},
		{"not a query", `({SELECT :targetList <>})`, nil, true},
		{"not a list", `{QUERY}`, nil, true},
		{"garbage in the target list", `({QUERY :targetList (42)})`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := viewTargets(tt.action)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error: %v", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestTraceColumn(t *testing.T) {
	// View 100 shows table 1's column 2 as its column 1 and a constant as
	// column 2; view 200 shows view 100's columns; 300 and 301 refer to
	// each other, which no catalog allows.
	targets := map[uint32]map[int]targetEntry{
		100: {1: {resno: 1, origTable: 1, origColumn: 2}, 2: {resno: 2}},
		200: {1: {resno: 1, origTable: 100, origColumn: 1}, 2: {resno: 2, origTable: 100, origColumn: 2}},
		300: {1: {resno: 1, origTable: 301, origColumn: 1}},
		301: {1: {resno: 1, origTable: 300, origColumn: 1}},
	}
	tests := []struct {
		name       string
		rel        uint32
		attnum     int
		wantRel    uint32
		wantAttnum int
		wantOK     bool
	}{
		{"a table column is itself", 1, 2, 1, 2, true},
		{"through one view", 100, 1, 1, 2, true},
		{"through two views", 200, 1, 1, 2, true},
		{"a constant traces nowhere", 200, 2, 0, 0, false},
		{"a column the view lacks", 100, 9, 0, 0, false},
		{"no relation", 0, 0, 0, 0, false},
		{"a cycle ends", 300, 1, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rel, attnum, ok := traceColumn(targets, tt.rel, tt.attnum)
			if rel != tt.wantRel || attnum != tt.wantAttnum || ok != tt.wantOK {
				t.Errorf("traceColumn(%d, %d) = %d, %d, %v; want %d, %d, %v",
					tt.rel, tt.attnum, rel, attnum, ok, tt.wantRel, tt.wantAttnum, tt.wantOK)
			}
		})
	}
}
