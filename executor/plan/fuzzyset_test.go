package plan

import (
	"math"
	"testing"
)

func TestFuzzySet(t *testing.T) {
	states := newFuzzySet([]string{"Alabama", "Alaska", "Washington", "Wisconsin", "West Virginia", "Wyoming", "Virgin Islands", "Rhode Island"})
	got := states.get("Why-oh-me-ing", relationshipHintScore)
	if len(got) == 0 || got[0].name != "Wyoming" || math.Abs(got[0].score-0.5384615384615384) > 1e-12 {
		t.Errorf("Why-oh-me-ing matched %v, want Wyoming at 0.5384615384615384 first", got)
	}

	// PostgREST's own examples of its relationship hint.
	films := newFuzzySet([]string{"directors", "roles", "actors"})
	if got := films.get("role", relationshipHintScore); len(got) == 0 || got[0].name != "roles" || got[0].score >= 1 {
		t.Errorf("role matched %v, want roles first", got)
	}
	if got := films.get("ACTORS", relationshipHintScore); len(got) != 1 || got[0] != (fuzzyMatch{1, "actors"}) {
		t.Errorf("ACTORS matched %v, want actors alone with score 1", got)
	}
	if got := films.get("noclosealternative", relationshipHintScore); len(got) != 0 {
		t.Errorf("noclosealternative matched %v, want nothing", got)
	}
	if got := newFuzzySet([]string{"films"}).get("film", relationshipHintScore); len(got) != 1 || got[0].name != "films" {
		t.Errorf("film matched %v, want films", got)
	}
}
