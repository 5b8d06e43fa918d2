package security

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// examplesPerGroup is how many requests a group of findings shows.
const examplesPerGroup = 3

// findings gathers what went wrong, grouped by input point, kind and
// status, so that thousands of failing requests read as a short list.
type findings struct {
	mu     sync.Mutex
	groups map[string]*findingGroup
}

type findingGroup struct {
	point, kind string
	status      int
	count       int
	examples    []string
}

// add records one failing request.
func (f *findings) add(point, kind string, status int, example string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.groups == nil {
		f.groups = map[string]*findingGroup{}
	}
	key := fmt.Sprintf("%s\x00%s\x00%d", point, kind, status)
	g := f.groups[key]
	if g == nil {
		g = &findingGroup{point: point, kind: kind, status: status}
		f.groups[key] = g
	}
	g.count++
	if len(g.examples) < examplesPerGroup {
		g.examples = append(g.examples, example)
	}
}

// empty says nothing was recorded.
func (f *findings) empty() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.groups) == 0
}

// report is the groups, by kind then point, each with its examples.
func (f *findings) report() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	gs := make([]*findingGroup, 0, len(f.groups))
	total := 0
	for _, g := range f.groups {
		gs = append(gs, g)
		total += g.count
	}
	sort.Slice(gs, func(i, j int) bool {
		a, b := gs[i], gs[j]
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		if a.point != b.point {
			return a.point < b.point
		}
		return a.status < b.status
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d failing requests in %d groups (input point, what, status):\n", total, len(gs))
	for _, g := range gs {
		status := "no status"
		if g.status != 0 {
			status = fmt.Sprintf("status %d", g.status)
		}
		fmt.Fprintf(&b, "\n[%s] %s, %s: %d requests\n", g.kind, g.point, status, g.count)
		for _, e := range g.examples {
			fmt.Fprintf(&b, "    %s\n", e)
		}
	}
	return b.String()
}
