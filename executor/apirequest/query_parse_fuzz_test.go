package apirequest

import (
	"testing"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// FuzzParseQuery checks that no query string makes the parser panic, that
// the fast paths give what the grammar gives, and that every failure is a
// PGRST100 with a message and details.
func FuzzParseQuery(f *testing.F) {
	for _, seed := range []string{
		"", "select=*", "select=id,tasks!inner(name,...users(n:name::text),c:count())&tasks.order=id.desc",
		"id=eq.1&name=in.(\"a,b\",c)&or=(a.eq.1,and(b.gt.2,not.or(c.is.null)))",
		"data->a->>0=like(any).{a*,b*}&t=fts(english).x&order=c(d->>e).asc.nullslast,f",
		"limit=10&offset=5&tasks.limit=-1&columns=a,b&on_conflict=a",
		"select=a:b->%22x%22::int.sum()::text", "or=(", "id=in.(", "select=a(", "a=%E2%82", "x=1;y=2&&z",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		assertSameParse(t, query)
		for _, parse := range []func(string) (*Query, *apierr.Error){ParseQuery, ParseRPCQuery} {
			q, err := parse(query)
			if err == nil {
				if q == nil || q.Select == nil {
					t.Fatalf("%q: nil query or select without an error", query)
				}
				RootRange("0-9", q.Ranges)
				continue
			}
			if err.Code != "PGRST100" || err.Message == "" || err.Details == nil {
				t.Fatalf("%q: unexpected error %s %q %v", query, err.Code, err.Message, err.Details)
			}
		}
	})
}
