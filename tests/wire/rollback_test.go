package wire

import (
	"slices"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// A transaction that ends in rollback checks its deferred constraints
// first, as PostgREST does (SET CONSTRAINTS ALL IMMEDIATE, then ROLLBACK),
// so that a violation it deferred is answered as at commit; one that
// commits sends COMMIT alone. Both stay in the one round trip, before the
// session reset, with prepared statements and without.
func TestARollbackChecksDeferredConstraintsFirst(t *testing.T) {
	for _, c := range []struct {
		name, prepared string
		// steady is the messages of a statement the connection has
		// prepared: Bind, Execute; or, unnamed, Parse, Bind, Describe,
		// Execute.
		steady string
	}{
		{"with prepared statements", "true", "BE"},
		{"without prepared statements", "false", "PBDE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, rec := startThroughRecorder(t, "db_tx_end rollback-allow-override", "db_prepared_statements "+c.prepared)
			user := bearer(t, jwt.MapClaims{"role": "webuser"})
			requestMessages(t, s, rec, "/items?id=eq.1", user...) // prepares the read
			requestMessages(t, s, rec, "/items?id=eq.1", append([]string{"Prefer", "tx=commit"}, user...)...)
			ends := []struct {
				name   string
				prefer []string
				end    []string
			}{
				{"the configured rollback", nil, []string{"SET CONSTRAINTS ALL IMMEDIATE", "ROLLBACK"}},
				{"Prefer tx=rollback", []string{"Prefer", "tx=rollback"}, []string{"SET CONSTRAINTS ALL IMMEDIATE", "ROLLBACK"}},
				{"Prefer tx=commit", []string{"Prefer", "tx=commit"}, []string{"COMMIT"}},
			}
			for _, e := range ends {
				t.Run(e.name+" ends with "+strings.Join(e.end, ", then "), func(t *testing.T) {
					msgs := requestMessages(t, s, rec, "/items?id=eq.2", append(slices.Clone(e.prefer), user...)...)
					statements := 3 + len(e.end) + len(resetStatements)
					if got, want := kinds(msgs), strings.Repeat(c.steady, statements)+"S"; got != want {
						t.Fatalf("sent %q, want %q", got, want)
					}
					texts := statementTexts(rec.since(0), msgs)
					if got := texts[3 : 3+len(e.end)]; !slices.Equal(got, e.end) {
						t.Errorf("after the read: %q, want %q; all: %q", got, e.end, texts)
					}
					if !endsWithReset(texts) {
						t.Errorf("the session reset does not end the request: %q", texts)
					}
				})
			}
		})
	}
}

// statementTexts is the text of each statement msgs run, in order: the
// named statements' from the Parse that made them (among all), unnamed
// ones' from the Parse before their Bind.
func statementTexts(all, msgs []message) []string {
	named := parsed(all)
	var out []string
	last := ""
	for _, m := range msgs {
		switch {
		case m.kind == 'P':
			last = m.sql
		case m.kind == 'B' && m.name == "":
			out = append(out, last)
		case m.kind == 'B':
			out = append(out, named[m.name])
		}
	}
	return out
}
