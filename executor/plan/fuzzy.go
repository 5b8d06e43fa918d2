package plan

// minSimilarity is how alike a suggestion must be, as in PostgREST's
// table and function hints; a weaker match says more about the schema
// than it helps.
const minSimilarity = 0.75

// Closest returns the candidate most similar to name, or "" when none is
// similar enough. Similarity is 1 - edit distance / longer length; ties go
// to the alphabetically first candidate so hints are stable.
func Closest(name string, candidates []string) string {
	best, bestScore := "", 0.0
	for _, c := range candidates {
		if s := Similarity(name, c); s > bestScore || s == bestScore && c < best {
			best, bestScore = c, s
		}
	}
	if bestScore < minSimilarity {
		return ""
	}
	return best
}

// Similarity is how alike a and b are, from 0 to 1: 1 - their edit
// distance / the longer one's length, counted in runes.
func Similarity(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	longer := max(len(ra), len(rb))
	if longer == 0 {
		return 1
	}
	return 1 - float64(levenshtein(ra, rb))/float64(longer)
}

func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
