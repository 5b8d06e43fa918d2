package main

import (
	"fmt"
	"strings"
	"time"
)

// printCPU prints the CPU time per request of every variant in every
// cell: this process's (the load generator, Caddy, pgrest, the baselines'
// pgx) and the database server's. pgrest-caddy+raw is what pgrest's Go
// side costs beyond Caddy's routing and a pipelined pgx client; pgrest/raw
// on the server's side is what pgrest's transaction costs PostgreSQL over
// the same SQL sent by hand.
func printCPU(variants []*variant, rows []*cell, dbWhyNot, client string) {
	paced := indexOrNone(variants, pacedName(1))
	self := "this process (load generator, Caddy, pgrest, the baselines' pgx)"
	if client != "in" {
		self = "this process (Caddy, pgrest, the baselines' pgx) plus the load generator's, for the HTTP variants"
	}
	fmt.Printf("CPU time per request, µs: %s, and PostgreSQL (all its processes)\n", self)
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %4s  process:", "workload", "conc")
	for _, v := range variants {
		fmt.Fprintf(&b, " %9s", v.name)
	}
	fmt.Fprintf(&b, " %17s", "pgrest-caddy+raw")
	if dbWhyNot == "" {
		fmt.Fprintf(&b, "  PostgreSQL:")
		for _, v := range variants {
			fmt.Fprintf(&b, " %9s", v.name)
		}
		fmt.Fprintf(&b, " %11s %17s", "pgrest/raw", "pgrest/caddy+raw")
		if paced >= 0 {
			fmt.Fprintf(&b, " %17s", "pgrest/raw@pgrest")
		}
	}
	fmt.Println(b.String())
	for _, r := range rows {
		b.Reset()
		fmt.Fprintf(&b, "%-11s %4d          ", r.workload, r.conc)
		for i := range variants {
			fmt.Fprintf(&b, " %9s", us(r.goSideCPU(i)))
		}
		fmt.Fprintf(&b, " %17s", us(r.goSideCPU(0)-r.goSideCPU(indexOf(variants, "caddy+raw"))))
		if dbWhyNot == "" {
			fmt.Fprintf(&b, "             ")
			for _, d := range r.dbCPU {
				fmt.Fprintf(&b, " %9s", us(d))
			}
			fmt.Fprintf(&b, " %11.2f %17.2f", ratioOf(r.dbCPU[0], r.dbCPU[indexOf(variants, "raw")]),
				ratioOf(r.dbCPU[0], r.dbCPU[indexOf(variants, "caddy+raw")]))
			if paced >= 0 {
				fmt.Fprintf(&b, " %17.2f", ratioOf(r.dbCPU[0], r.dbCPU[paced]))
			}
		}
		fmt.Println(b.String())
	}
	fmt.Println("Over all rounds: CPU time of the variant's windows (their tails and a garbage collection after each included) / requests served.")
	fmt.Println("pgrest-caddy+raw: what pgrest's Go side costs beyond Caddy's routing and a pipelined pgx client, the HTTP client's share in both (the goal's measure is in the next table).")
	if dbWhyNot != "" {
		fmt.Printf("PostgreSQL's CPU time is not measured: %s.\n", dbWhyNot)
	}
	if paced >= 0 {
		fmt.Println("raw@pgrest: the raw loop (same statements, workers and pool) paced at the throughput pgrest reached in its last two windows;")
		fmt.Println("PostgreSQL's CPU per request grows as requests come more slowly (a backend woken for each), so pgrest/raw@pgrest is")
		fmt.Println("what pgrest's transaction costs the server over the same SQL at the same pace; pgrest/raw mixes in the pace.")
	}
}

// printLatency prints every variant's p50 and p99 in every cell, at the
// client: pgrest's and caddy+raw's over HTTP, the others' around the pgx
// transaction (a paced variant's from the send, not from its slot).
func printLatency(variants []*variant, rows []*cell) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %4s  p50/p99:", "workload", "conc")
	for _, v := range variants {
		fmt.Fprintf(&b, " %17s", v.name)
	}
	fmt.Println(b.String())
	for _, r := range rows {
		b.Reset()
		fmt.Fprintf(&b, "%-11s %4d          ", r.workload, r.conc)
		for i := range variants {
			fmt.Fprintf(&b, " %17s", ms(r.p50s[i])+"/"+ms(r.p99s[i]))
		}
		fmt.Println(b.String())
	}
	fmt.Println("Latency over all of the variant's rounds, at the client: the HTTP round trip for pgrest and caddy+raw, the pgx transaction for the rest.")
}

// printGoals sets the figures against the performance goals.
//
// PostgreSQL's CPU goal is judged against raw@pgrest when it was measured:
// the server's cost per request falls as the pace rises (the paced
// variants show it), so only the raw loop at pgrest's pace isolates what
// pgrest's transaction costs; the ratio to the unpaced loop is shown
// beside it.
func printGoals(variants []*variant, rows []*cell, mem *rssResult, load *schemaLoadResult) {
	fmt.Println("Goals:")
	paced := indexOrNone(variants, pacedName(1))
	raw := indexOf(variants, "raw")
	cr, pacedHTTP := indexOf(variants, "caddy+raw"), indexOf(variants, caddyRawPaced)
	var readRatio, goExtra, goUnpaced, dbRatio, dbUnpaced, p99 []string
	readMet, goMet, dbMet, p99Met := true, true, true, true
	worst := time.Duration(0)
	var worstCell *cell
	for _, r := range rows {
		if r.workload == "items_eq" {
			v := r.vs[1].median
			readRatio = append(readRatio, fmt.Sprintf("c=%d %.2f", r.conc, v))
			readMet = readMet && v >= 0.9
			atPace, slow, fast := caddyRawAtPgrestsPace(r, cr, pacedHTTP)
			extra := r.serverCPU[0] - atPace
			goExtra = append(goExtra, fmt.Sprintf("c=%d %s µs (caddy+raw read between %.2fx and %.2fx)", r.conc, us(extra),
				slow/max(r.rate[0], 1), fast/max(r.rate[0], 1)))
			goMet = goMet && extra < goCPUGoal
			goUnpaced = append(goUnpaced, fmt.Sprintf("c=%d %s µs", r.conc, us(r.goSideCPU(0)-r.goSideCPU(cr))))
			against := raw
			if paced >= 0 {
				against = paced
			}
			if r.dbCPU[against] > 0 {
				d := ratioOf(r.dbCPU[0], r.dbCPU[against])
				figure := fmt.Sprintf("c=%d %.2f", r.conc, d)
				if against == paced {
					// How closely the pace was matched: the server's cost
					// per request moves with it.
					figure += fmt.Sprintf(" (paced at %.2fx)", r.rate[paced]/max(r.rate[0], 1))
				}
				dbRatio = append(dbRatio, figure)
				dbMet = dbMet && d <= 1.2
			}
			if paced >= 0 && r.dbCPU[raw] > 0 {
				dbUnpaced = append(dbUnpaced, fmt.Sprintf("c=%d %.2f at %.1fx pgrest's pace", r.conc,
					ratioOf(r.dbCPU[0], r.dbCPU[raw]), r.rate[raw]/max(r.rate[0], 1)))
			}
		}
		if r.conc == 32 && r.p99 > worst {
			worst, worstCell = r.p99, r
		}
	}
	if worstCell != nil {
		p99 = append(p99, fmt.Sprintf("worst %s (%s)", ms(worst), worstCell.workload))
		p99Met = worst < 10*time.Millisecond
	}
	goal := func(what string, figures []string, target string, met bool) {
		if len(figures) == 0 {
			return
		}
		verdict := "met"
		if !met {
			verdict = "NOT met"
		}
		fmt.Printf("  %-44s %-30s %-12s %s\n", what, strings.Join(figures, ", "), target, verdict)
	}
	goal("items_eq throughput, pgrest/caddy+raw", readRatio, ">= 0.90", readMet)
	ceilingGoals(variants, rows, goal)
	goal("p99 at 32 connections", p99, "< 10ms", p99Met)
	if worstCell != nil {
		// The machine's own tail: the same cell's p99 without pgrest.
		cr, raw := indexOf(variants, "caddy+raw"), indexOf(variants, "raw")
		fmt.Printf("  %-44s caddy+raw %s, raw %s (p50: pgrest %s, caddy+raw %s, raw %s)\n", "  p99 of the same cell without pgrest",
			ms(worstCell.p99s[cr]), ms(worstCell.p99s[raw]), ms(worstCell.p50), ms(worstCell.p50s[cr]), ms(worstCell.p50s[raw]))
	}
	goal("items_eq Go CPU beyond caddy+raw, same pace", goExtra, "< 15 µs", goMet)
	if len(goUnpaced) > 0 {
		fmt.Printf("  %-44s %s (not the goal's measure)\n", "  unpaced, with the load generator's CPU", strings.Join(goUnpaced, ", "))
	}
	if paced >= 0 {
		goal("items_eq PostgreSQL CPU, pgrest/raw@pgrest", dbRatio, "<= 1.2", dbMet)
		if len(dbUnpaced) > 0 {
			fmt.Printf("  %-44s %s (not the goal's measure)\n", "  the same against raw, unpaced", strings.Join(dbUnpaced, ", "))
		}
	} else {
		goal("items_eq PostgreSQL CPU, pgrest/raw", dbRatio, "<= 1.2", dbMet)
	}
	if mem != nil {
		goal("RSS of Caddy+pgrest (peak)", []string{fmt.Sprintf("%.1f MB", mem.peakMB())}, "< 80 MB", mem.peakMB() < 80)
	}
	if load != nil {
		goal("schema cache load, 1,000 tables (median)", []string{ms(load.median)}, "< "+ms(schemaLoadGoal), load.median < schemaLoadGoal)
	}
}

// ceilingGoals sets every workload's throughput against its ceiling and
// its p99 against caddy+raw's, as the performance goals have them: the
// one-row read at least 0.85 of the ceiling at 32 connections and 0.80
// below, every other workload 0.80, p99 at 32 connections at most 1.15
// times caddy+raw's. The ceiling is ceiling₀, whose D₀ leaves the session
// reset out, so pgrest pays for its reset; the share of the ceiling with
// the reset in D is printed beside it.
func ceilingGoals(variants []*variant, rows []*cell, goal func(what string, figures []string, target string, met bool)) {
	route, pipeline, bare := indexOf(variants, routeVariant), indexOf(variants, pipelineVariant), indexOf(variants, bareVariant)
	cr := indexOf(variants, "caddy+raw")
	byWorkload := map[string][]*cell{}
	var order []string
	for _, r := range rows {
		if byWorkload[r.workload] == nil {
			order = append(order, r.workload)
		}
		byWorkload[r.workload] = append(byWorkload[r.workload], r)
	}
	for _, w := range order {
		var figures, withReset, tails []string
		met, tailMet := true, true
		target := ">= 0.80"
		for _, r := range byWorkload[w] {
			want := 0.80
			if w == "items_eq" && r.conc >= 32 {
				want, target = 0.85, ">= 0.85 (32), 0.80"
			}
			v := r.ceilingRatios(0, route, bare).median
			met = met && v >= want
			figures = append(figures, fmt.Sprintf("c=%d %.2f", r.conc, v))
			withReset = append(withReset, fmt.Sprintf("c=%d %.2f (caddy+raw %.2f)", r.conc,
				r.ceilingRatios(0, route, pipeline).median, r.ceilingRatios(cr, route, pipeline).median))
			if r.conc == 32 && r.p99s[cr] > 0 {
				t := ratioOf(r.p99s[0], r.p99s[cr])
				tailMet = tailMet && t <= 1.15
				tails = append(tails, fmt.Sprintf("%.2f (%s/%s)", t, ms(r.p99s[0]), ms(r.p99s[cr])))
			}
		}
		goal(w+" throughput, pgrest/ceiling₀", figures, target, met)
		fmt.Printf("  %-44s %s\n", "  pgrest/ceiling, reset in D", strings.Join(withReset, ", "))
		goal(w+" p99 at 32, pgrest/caddy+raw", tails, "<= 1.15", tailMet)
	}
}

// indexOrNone is the index of the variant name, or -1.
func indexOrNone(variants []*variant, name string) int {
	for i, v := range variants {
		if v.name == name {
			return i
		}
	}
	return -1
}

func indexOf(variants []*variant, name string) int {
	for i, v := range variants {
		if v.name == name {
			return i
		}
	}
	panic("no variant " + name)
}

func ratioOf(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func us(d time.Duration) string {
	return fmt.Sprintf("%.1f", float64(d)/float64(time.Microsecond))
}

// printGC prints the garbage collection in this process (Caddy, pgrest,
// the baselines, and the HTTP client when it runs here) during each
// variant's windows: collections per 1,000 requests, then the CPU time
// per request of mark assists and of all of the collector's work.
func printGC(variants []*variant, rows []*cell, client string) {
	where := "the HTTP client runs in a process of its own"
	if client == "in" {
		where = "the HTTP client runs here too"
	}
	fmt.Printf("Garbage collection in the bench's process (Caddy, pgrest, the baselines; %s):\n", where)
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %4s  GCs/1k req, assist/GC µs/req:", "workload", "conc")
	for _, v := range variants {
		fmt.Fprintf(&b, " %16s", v.name)
	}

	fmt.Println(b.String())
	for _, r := range rows {
		b.Reset()
		fmt.Fprintf(&b, "%-11s %4d                              ", r.workload, r.conc)
		for i := range variants {
			g, n := r.gc[i], max(r.served[i], 1)
			fmt.Fprintf(&b, " %16s", fmt.Sprintf("%.2f %s/%s", float64(g.cycles)*1000/float64(n),
				us(g.assist/time.Duration(n)), us(g.gcWork/time.Duration(n))))
		}

		fmt.Println(b.String())
	}
}
