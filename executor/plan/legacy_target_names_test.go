package plan_test

import (
	"net/http"
	"reflect"
	"testing"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/plan"
)

// legacyPairs renders LegacyNames as relation→alias pairs.
func legacyPairs(p *plan.Read) []string {
	var out []string
	for _, e := range p.LegacyNames() {
		out = append(out, e.Relation+"→"+e.Name)
	}
	return out
}

func TestLegacyTargetNames(t *testing.T) {
	cache := testCache()
	legacy := plan.ReadOptions{LegacyTargetNames: true}
	strict := plan.ReadOptions{}

	t.Run("the alias names the embed with either setting", func(t *testing.T) {
		for _, opts := range []plan.ReadOptions{legacy, strict} {
			p, err := build(t, cache, "projects?select=id,the_tasks:tasks(id)&the_tasks.id=eq.1&the_tasks.order=id&the_tasks.limit=1", opts)
			if err != nil {
				t.Fatalf("%+v: %s %s", opts, err.Code, err.Message)
			}
			child := p.Embeds[0].Plan
			if len(child.Where) != 1 || len(child.Order) != 1 || child.Range.Limit == nil || *child.Range.Limit != 1 {
				t.Errorf("the embed did not get its filter, order and limit: %+v", child)
			}
			if got := legacyPairs(p); got != nil {
				t.Errorf("legacy names %v, want none", got)
			}
		}
	})

	t.Run("the relation names an aliased embed with legacy target names, and is recorded", func(t *testing.T) {
		p, err := build(t, cache, "projects?select=id,the_tasks:tasks(id)&tasks.id=eq.1&tasks.order=id&tasks.offset=2", legacy)
		if err != nil {
			t.Fatalf("%s %s", err.Code, err.Message)
		}
		child := p.Embeds[0].Plan
		if len(child.Where) != 1 || len(child.Order) != 1 || child.Range.Offset != 2 {
			t.Errorf("the embed did not get its filter, order and offset: %+v", child)
		}
		if got, want := legacyPairs(p), []string{"tasks→the_tasks"}; !reflect.DeepEqual(got, want) {
			t.Errorf("legacy names %v, want %v", got, want)
		}
	})

	t.Run("nested embeds are listed root first, in select order", func(t *testing.T) {
		p, err := build(t, cache, "clients?select=id,ps:projects(id,ts:tasks(id)),members:projects(id)"+
			"&ps.tasks.id=eq.1&projects.id=eq.2", legacy)
		if err != nil {
			t.Fatalf("%s %s", err.Code, err.Message)
		}
		// projects.id names the first embed of projects, ps, as
		// PostgREST's updateNode takes the first that answers.
		if got, want := legacyPairs(p), []string{"projects→ps", "tasks→ts"}; !reflect.DeepEqual(got, want) {
			t.Errorf("legacy names %v, want %v", got, want)
		}
		if len(p.Embeds[0].Plan.Where) != 1 || len(p.Embeds[1].Plan.Where) != 0 {
			t.Errorf("projects.id went to the wrong embed")
		}
	})

	t.Run("an unaliased embed is named by its relation and is not legacy", func(t *testing.T) {
		for _, opts := range []plan.ReadOptions{legacy, strict} {
			p, err := build(t, cache, "projects?select=id,tasks(id)&tasks.id=eq.1", opts)
			if err != nil {
				t.Fatalf("%s %s", err.Code, err.Message)
			}
			if got := legacyPairs(p); got != nil {
				t.Errorf("legacy names %v, want none", got)
			}
		}
	})

	t.Run("an alias equal to the relation is not legacy", func(t *testing.T) {
		p, err := build(t, cache, "projects?select=id,tasks:tasks(id)&tasks.id=eq.1", legacy)
		if err != nil {
			t.Fatalf("%s %s", err.Code, err.Message)
		}
		if got := legacyPairs(p); got != nil {
			t.Errorf("legacy names %v, want none", got)
		}
	})

	t.Run("without legacy target names the relation is PGRST108 naming the alias", func(t *testing.T) {
		want := &apierr.Error{Status: http.StatusBadRequest, Code: "PGRST108",
			Message: "'tasks' is not an embedded resource in this request",
			Details: "Target names are not allowed in filters if they have an alias",
			Hint:    "Change 'tasks' to 'the_tasks' in filters, orders or limits."}
		for _, q := range []string{"tasks.id=eq.1", "tasks.order=id", "tasks.limit=1", "tasks.or=(id.eq.1,id.eq.2)"} {
			_, err := build(t, cache, "projects?select=id,the_tasks:tasks(id)&"+q, strict)
			if !reflect.DeepEqual(err, want) {
				t.Errorf("%s: got %+v, want %+v", q, err, want)
			}
		}
	})

	t.Run("a name no embed answers to stays the plain PGRST108", func(t *testing.T) {
		for _, opts := range []plan.ReadOptions{legacy, strict} {
			_, err := build(t, cache, "projects?select=id,the_tasks:tasks(id)&clients.id=eq.1", opts)
			if !reflect.DeepEqual(err, apierr.NotEmbedded("clients")) {
				t.Errorf("got %+v", err)
			}
		}
	})
}
