package executor

import (
	"math"
	"testing"
)

// The guard's range and pgrest's checks agree on every page_total: a
// value outside the bounds fails a check, a value inside fails none.
func TestPageChecksAgreeWithTheirBounds(t *testing.T) {
	sets := map[string]pageChecks{
		"singular":                     {singularCheck()},
		"max-affected 3":               {maxAffectedCheck(3)},
		"max-affected 0 then singular": {maxAffectedCheck(0), singularCheck()},
		"put then singular":            {putMatchCheck(), singularCheck()},
		"max-affected 5 and put":       {maxAffectedCheck(5), putMatchCheck()},
	}
	for name, cs := range sets {
		lo, hi := cs.bounds()
		for _, n := range []int64{0, 1, 2, 3, 4, 5, 6, 100, math.MaxInt64} {
			inside := n >= lo && n <= hi
			if failed := cs.check(n) != nil; failed == inside {
				t.Errorf("%s: page_total %d: check failed %v, bounds [%d, %d]", name, n, failed, lo, hi)
			}
		}
	}
}

// The first failed check is the error, in the order given.
func TestPageChecksReportTheFirstFailure(t *testing.T) {
	first := pageChecks{maxAffectedCheck(1), singularCheck()}
	want := maxAffectedCheck(1).fail(2).Error()
	if err := first.check(2); err == nil || err.Error() != want {
		t.Errorf("got %v, want the max-affected error %s", err, want)
	}
}
