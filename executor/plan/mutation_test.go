package plan_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
)

// TestMutate plans writes on clients (id, name; primary key id) from the
// action, preferences, body and query string alone.
func TestMutate(t *testing.T) {
	cache := testCache()
	tests := []struct {
		name    string
		action  apirequest.Action
		prefs   apirequest.Preferences
		query   string
		body    string
		want    plan.Mutation // Relation, Parsers and Where are checked apart
		where   int           // conditions of Where; -1 for no Where
		wantErr string
	}{
		{name: "an object is inserted as a one-row array, keys in body order",
			action: apirequest.ActionCreate, body: `{"name":"a","id":1}`,
			want:  plan.Mutation{Kind: plan.Insert, Columns: []string{"name", "id"}, Payload: []byte(`[{"name":"a","id":1}]`)},
			where: -1},
		{name: "columns= lists the columns",
			action: apirequest.ActionCreate, query: "columns=id", body: `[{"id":1,"x":2}]`,
			want:  plan.Mutation{Kind: plan.Insert, Columns: []string{"id"}, ColumnsListed: true, Payload: []byte(`[{"id":1,"x":2}]`)},
			where: -1},
		{name: "a key that is no column is PGRST204", action: apirequest.ActionCreate, body: `{"nope":1}`, wantErr: "PGRST204"},
		{name: "an invalid body is PGRST102", action: apirequest.ActionCreate, body: `{`, wantErr: "PGRST102"},
		{name: "merge-duplicates upserts on the primary key",
			action: apirequest.ActionCreate, prefs: apirequest.Preferences{Resolution: "merge-duplicates", Missing: "default"},
			body: `{"id":1}`,
			want: plan.Mutation{Kind: plan.Insert, Columns: []string{"id"}, Payload: []byte(`[{"id":1}]`),
				OnConflict: []string{"id"}, MissingDefault: true},
			where: -1},
		{name: "ignore-duplicates on on_conflict's columns",
			action: apirequest.ActionCreate, prefs: apirequest.Preferences{Resolution: "ignore-duplicates"},
			query: "on_conflict=name", body: `{"name":"a"}`,
			want: plan.Mutation{Kind: plan.Insert, Columns: []string{"name"}, Payload: []byte(`[{"name":"a"}]`),
				OnConflict: []string{"name"}, IgnoreDuplicates: true},
			where: -1},
		{name: "an update takes an array's first row and the filters",
			action: apirequest.ActionUpdate, query: "id=eq.1&limit=2", body: `[{"name":"b"},{"name":"c"}]`,
			want:  plan.Mutation{Kind: plan.Update, Columns: []string{"name"}, Payload: []byte(`{"name":"b"}`), Limit: ptr(2)},
			where: 1},
		{name: "an update from an empty array sets no column",
			action: apirequest.ActionUpdate, body: `[]`,
			want:  plan.Mutation{Kind: plan.Update},
			where: 0},
		{name: "a delete reads no body",
			action: apirequest.ActionDelete, query: "name=eq.a&offset=3", body: `not json`,
			want:  plan.Mutation{Kind: plan.Delete, Offset: 3},
			where: 1},
		{name: "a put matches the URL's key",
			action: apirequest.ActionUpsert, query: "id=eq.1", body: `{"id":1,"name":"a"}`,
			want: plan.Mutation{Kind: plan.Insert, Columns: []string{"id", "name"}, Payload: []byte(`[{"id":1,"name":"a"}]`),
				OnConflict: []string{"id"}, KeyMatch: [][2]string{{"id", "1"}}},
			where: -1},
		{name: "a put filtering on no key is PGRST105", action: apirequest.ActionUpsert, query: "name=eq.a",
			body: `{"id":1}`, wantErr: "PGRST105"},
		{name: "a put body without the key is PGRST115", action: apirequest.ActionUpsert, query: "id=eq.1",
			body: `{"name":"a"}`, wantErr: "PGRST115"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := mustBuild(t, cache, "clients?"+tt.query)
			q, aerr := apirequest.ParseQuery(tt.query)
			if aerr != nil {
				t.Fatal(aerr.Message)
			}
			req := &apirequest.Request{Action: tt.action, Preferences: tt.prefs, ContentType: "application/json", Body: []byte(tt.body)}
			m, aerr := plan.Mutate(cache, root, req, q)
			if tt.wantErr != "" {
				if aerr == nil || aerr.Code != tt.wantErr {
					t.Fatalf("got %+v, %v; want %s", m, aerr, tt.wantErr)
				}
				return
			}
			if aerr != nil {
				t.Fatalf("%s %s", aerr.Code, aerr.Message)
			}
			if m.Relation != root.Relation {
				t.Errorf("relation %v, want the root's", m.Relation)
			}
			if got := len(m.Parsers); got != 0 {
				t.Errorf("%d parsers for text columns", got)
			}
			switch {
			case tt.where < 0 && m.Where != nil:
				t.Errorf("where %+v on an insert", m.Where)
			case tt.where >= 0 && (m.Where == nil || len(m.Where.Where) != tt.where || m.Where.Relation != root.Relation):
				t.Errorf("where %+v, want %d conditions on the root's relation", m.Where, tt.where)
			}
			got := *m
			got.Relation, got.Parsers, got.Where = nil, nil, nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %s\nwant %s", show(got), show(tt.want))
			}
		})
	}
}

func ptr(n int64) *int64 { return &n }

// show prints a mutation with its payload as text.
func show(m plan.Mutation) string {
	payload := string(m.Payload)
	m.Payload = nil
	return fmt.Sprintf("%s %+v", payload, m)
}
