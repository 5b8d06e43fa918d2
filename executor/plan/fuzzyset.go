package plan

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// fuzzySet finds the names most like a given one the way the fuzzy set
// PostgREST words its relationship hints with does: the candidates sharing
// trigrams with the name (bigrams when none does), the 50 closest by the
// cosine of their gram counts, scored by edit distance and kept from a
// minimum score. A name equal to a candidate, ignoring case, matches it
// alone with score 1.
type fuzzySet struct {
	entries []fuzzyEntry
	exact   map[string]string
}

type fuzzyEntry struct {
	original, lower string
	// grams and norm by gram size, 2 and 3.
	grams [4]map[string]int
	norm  [4]float64
}

type fuzzyMatch struct {
	score float64
	name  string
}

// relationshipHintScore is the fuzzy set's default minimum score, which
// PostgREST's relationship hints use.
const relationshipHintScore = 0.33

func newFuzzySet(names []string) *fuzzySet {
	s := &fuzzySet{exact: map[string]string{}}
	for _, n := range names {
		lower := strings.ToLower(n)
		if _, ok := s.exact[lower]; ok {
			continue
		}
		s.exact[lower] = n
		e := fuzzyEntry{original: n, lower: lower}
		for size := 2; size <= 3; size++ {
			e.grams[size] = gramCounts(lower, size)
			e.norm[size] = gramNorm(e.grams[size])
		}
		s.entries = append(s.entries, e)
	}
	return s
}

// get lists the matches of name scoring at least minScore, best first.
func (s *fuzzySet) get(name string, minScore float64) []fuzzyMatch {
	key := strings.ToLower(name)
	if n, ok := s.exact[key]; ok {
		return []fuzzyMatch{{1, n}}
	}
	for size := 3; size >= 2; size-- {
		if m := s.matches(key, size, minScore); len(m) > 0 {
			return m
		}
	}
	return nil
}

func (s *fuzzySet) matches(key string, size int, minScore float64) []fuzzyMatch {
	q := gramCounts(key, size)
	qNorm := gramNorm(q)
	type scored struct {
		cosine float64
		entry  *fuzzyEntry
	}
	var found []scored
	for i := range s.entries {
		e := &s.entries[i]
		dot := 0
		for g, n := range q {
			dot += n * e.grams[size][g]
		}
		if dot > 0 {
			found = append(found, scored{float64(dot) / (qNorm * e.norm[size]), e})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].cosine > found[j].cosine })
	if len(found) > 50 {
		found = found[:50]
	}
	out := make([]fuzzyMatch, 0, len(found))
	for _, f := range found {
		out = append(out, fuzzyMatch{Similarity(key, f.entry.lower), f.entry.original})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	kept := out[:0]
	for _, m := range out {
		if m.score >= minScore {
			kept = append(kept, m)
		}
	}
	return kept
}

// gramCounts counts the grams of size in s, lowered, without characters
// other than letters, digits, spaces and commas, and enclosed in hyphens.
func gramCounts(s string, size int) map[string]int {
	var b strings.Builder
	b.WriteByte('-')
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsSpace(r) || r == ',' {
			b.WriteRune(r)
		}
	}
	b.WriteByte('-')
	runes := []rune(b.String())
	counts := map[string]int{}
	for i := 0; i+size <= len(runes); i++ {
		counts[string(runes[i:i+size])]++
	}
	return counts
}

func gramNorm(counts map[string]int) float64 {
	sum := 0
	for _, n := range counts {
		sum += n * n
	}
	return math.Sqrt(float64(sum))
}
