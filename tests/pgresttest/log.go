package pgresttest

import "strings"

// LogHasLine says whether log (Caddy's JSON log, one entry a line) has an
// entry of level that contains every one of words: a test that a
// misconfiguration is logged naming what is wrong.
func LogHasLine(log, level string, words ...string) bool {
	for line := range strings.SplitSeq(log, "\n") {
		if !strings.Contains(line, `"level":"`+level+`"`) {
			continue
		}
		all := true
		for _, w := range words {
			all = all && strings.Contains(line, w)
		}
		if all {
			return true
		}
	}
	return false
}
