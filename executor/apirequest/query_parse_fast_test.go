package apirequest

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// randomText joins up to maxLen tokens drawn from tokens; callers seed
// rng with constants, so the corpus is the same on every run.
func randomText(rng *rand.Rand, tokens []string, maxLen int) string {
	var b strings.Builder
	for range rng.IntN(maxLen + 1) {
		b.WriteString(tokens[rng.IntN(len(tokens))])
	}
	return b.String()
}

func TestFastPathsAgreeWithGrammar(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	selectTokens := []string{"a", "b", "count", "left", "inner", "leftx", "é", "_$", "*", "...", ":", "::", "!", "(", ")",
		",", " ", "\t", "-", ">", ".", `"`, `\`, "sum()", "()", "int", "count()", "a(", "b:c", "!inner", "!fk",
		"::int[]", "::s.t", "[]", "[", "$", "::t.sum()"}
	orderTokens := []string{"a", "b", "asc", "desc", "nullsfirst", "nullslast", ".", ",", " ", "(", ")", "->", "x-y", `"`}
	filterTokens := []string{"not", "eq", "neq", "gt", "gte", "like", "ilike", "is", "in", "isdistinct", "fts", "cs", ".",
		"(", ")", ",", `"`, "null", "NULL", "Not_Null", "true", "unknown", "x", "*", " ", "any", "(any)", "{1,2}", "é"}
	keyTokens := []string{"a", "b", ".", "->", "->>", "0", "-", " ", `"`, "é", "select", "order"}

	// Each corpus must send enough inputs down its fast path, or the
	// agreement it checks would hold for a fast path that accepts nothing.
	t.Run("select agrees", func(t *testing.T) {
		accepted := 0
		for range 40000 {
			s := randomText(rng, selectTokens, 10)
			fast, ok := fastSelect(s)
			if !ok {
				continue
			}
			accepted++
			slow, err := runParser(pFieldForest, "", s)
			if slow == nil {
				slow = []SelectItem{}
			}
			if err != nil || !reflect.DeepEqual(fast, slow) {
				t.Fatalf("select %q:\nfast %#v\ngrammar %#v %v", s, fast, slow, err)
			}
		}
		wantAccepted(t, "selects", accepted, 1000)
	})
	t.Run("order agrees", func(t *testing.T) {
		accepted := 0
		for range 40000 {
			s := randomText(rng, orderTokens, 8)
			fast, ok := fastOrder(s)
			if !ok {
				continue
			}
			accepted++
			slow, err := runParser(pOrder, "", s)
			if err != nil || !reflect.DeepEqual(fast, slow) {
				t.Fatalf("order %q:\nfast %#v\ngrammar %#v %v", s, fast, slow, err)
			}
		}
		wantAccepted(t, "orders", accepted, 1000)
	})
	t.Run("filters agree", func(t *testing.T) {
		ops := []string{"eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "match", "imatch", "cs", "cd", "ov", "sl", "sr",
			"nxr", "nxl", "adj", "isdistinct", "fts", "plfts", "phfts", "wfts", "is", "in", "isx", "inx", "not"}
		accepted := 0
		for k := range 80000 {
			s := randomText(rng, filterTokens, 8)
			if k%2 == 0 {
				s = []string{"", "not."}[rng.IntN(2)] + ops[rng.IntN(len(ops))] + []string{".", "(", "", ".("}[rng.IntN(4)] + s
			}
			fast, ok := fastOpExpr(s)
			if !ok {
				continue
			}
			accepted++
			slow, err := runParser(pFilterOpExpr, "", s)
			if err != nil || !reflect.DeepEqual(fast, slow) {
				t.Fatalf("filter %q:\nfast %#v\ngrammar %#v %v", s, fast, slow, err)
			}
		}
		wantAccepted(t, "filters", accepted, 10000)
	})
	t.Run("keys agree", func(t *testing.T) {
		accepted := 0
		for range 40000 {
			s := randomText(rng, keyTokens, 6)
			fast, ok := fastTreePath(s)
			if !ok {
				continue
			}
			accepted++
			slow, err := runParser(pTreePath, "", s)
			if err != nil || !reflect.DeepEqual(fast, slow) {
				t.Fatalf("key %q:\nfast %#v\ngrammar %#v %v", s, fast, slow, err)
			}
		}
		wantAccepted(t, "keys", accepted, 1000)
	})
	t.Run("the field name scanner agrees", func(t *testing.T) {
		tokens := []string{"a", "é", " ", "\t", "-", ">", "->", `"`, `\`, ".", "_", "$", "1", "(", ":"}
		for range 40000 {
			in := randomText(rng, tokens, 7)
			scanned := scanFieldName(pstate{src: &source{in: []rune(in)}, pos: srcPos{1, 1}})
			parsed := fieldNameGrammar(pstate{src: &source{in: []rune(in), track: true}, pos: srcPos{1, 1}})
			if scanned.ok != parsed.ok || scanned.consumed != parsed.consumed ||
				scanned.ok && (scanned.v != parsed.v || scanned.st.i != parsed.st.i || scanned.st.pos != parsed.st.pos) {
				t.Fatalf("field name %q:\nscanned %v %v %q %d\ngrammar %v %v %q %d", in, scanned.ok, scanned.consumed, scanned.v,
					scanned.st.i, parsed.ok, parsed.consumed, parsed.v, parsed.st.i)
			}
		}
	})
	t.Run("whole queries agree, errors included", func(t *testing.T) {
		keys := []string{"select", "order", "tasks.order", "id", "a.b", "or", "not.and", "limit", "offset", "x.limit", "columns", "on_conflict"}
		values := append(append(selectTokens, filterTokens...), "1", "-1", "=", "&", "%20", "+")
		for range 20000 {
			var parts []string
			for range rng.IntN(4) + 1 {
				parts = append(parts, keys[rng.IntN(len(keys))]+"="+randomText(rng, values, 6))
			}
			query := strings.Join(parts, "&")
			assertSameParse(t, query)
		}
	})
}

// wantAccepted fails the test when fewer than least inputs of a corpus
// took the fast path.
func wantAccepted(t *testing.T, what string, accepted, least int) {
	t.Helper()
	if accepted < least {
		t.Errorf("only %d %s took the fast path; the corpus no longer tests it", accepted, what)
	}
}

// assertSameParse checks that the fast paths change nothing for query.
func assertSameParse(t *testing.T, query string) {
	t.Helper()
	for _, rpc := range []bool{false, true} {
		q1, e1 := parseQuery(&queryAlloc{}, query, rpc, true)
		q2, e2 := parseQuery(&queryAlloc{}, query, rpc, false)
		if !reflect.DeepEqual(q1, q2) || !reflect.DeepEqual(e1, e2) {
			t.Fatalf("query %q (rpc %v):\nfast    %#v %v\ngrammar %#v %v", query, rpc, q1, e1, q2, e2)
		}
	}
}

func TestScanPredicatesMatchTheirParsers(t *testing.T) {
	sample := []rune("é中٣Ⅻ\u00a0\u2003ǅʰ")
	for r := rune(0); r < 128; r++ {
		sample = append(sample, r)
	}
	pairs := []struct {
		name   string
		accept func(rune) bool
		p      parser[rune]
	}{
		{"identifier characters", isIdentifierChar, alt(letter, digit, oneOf("_ $"))},
		{"type name characters", isTypeNameChar, alt(asciiLetter, digit, oneOf("_"))},
		{"spaces and tabs", func(r rune) bool { return r == ' ' || r == '\t' }, oneOf(" \t")},
		{"digits", func(r rune) bool { return r >= '0' && r <= '9' }, digit},
	}
	for _, pair := range pairs {
		t.Run(pair.name+" agree", func(t *testing.T) {
			for _, r := range sample {
				got := pair.p(pstate{src: &source{in: []rune{r}}, pos: srcPos{1, 1}}).ok
				if got != pair.accept(r) {
					t.Errorf("%q: parser %v, predicate %v", r, got, pair.accept(r))
				}
			}
		})
	}
}
