package main

import (
	"fmt"
	"strings"
	"time"
)

// printServerCPU prints the CPU time per request of the server's process
// alone for the HTTP variants: Caddy with pgrest and the baselines, the
// load generator's left out, as a deployment's server would count it.
// "at pgrest's pace" is the Go side's goal: what pgrest costs beyond
// Caddy's routing and a pipelined pgx client doing the same at the same
// pace (caddyRawAtPgrestsPace); pgrest-caddy+raw@pgrest is the same
// against the paced variant as measured, whatever pace it reached. The
// load generator's own CPU per request is shown beside it: it moves with
// the pace and the size of the answers, and is no part of pgrest's cost.
func printServerCPU(variants []*variant, rows []*cell, client string) {
	cr, paced := indexOf(variants, "caddy+raw"), indexOf(variants, caddyRawPaced)
	http := []int{0, cr, paced}
	fmt.Println("Go side, CPU time per request, µs: the server's process alone (Caddy, pgrest, the baselines), without the load generator's")
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %4s  server:", "workload", "conc")
	for _, i := range http {
		fmt.Fprintf(&b, " %16s", variants[i].name)
	}
	fmt.Fprintf(&b, " %17s %24s %17s", "at pgrest's pace", "pgrest-caddy+raw@pgrest", "pgrest-caddy+raw")
	if client != "in" {
		fmt.Fprintf(&b, "  load generator:")
		for _, i := range http {
			fmt.Fprintf(&b, " %16s", variants[i].name)
		}
	}
	fmt.Println(b.String())
	for _, r := range rows {
		b.Reset()
		fmt.Fprintf(&b, "%-11s %4d         ", r.workload, r.conc)
		for _, i := range http {
			fmt.Fprintf(&b, " %16s", us(r.serverCPU[i]))
		}
		atPace, _, _ := caddyRawAtPgrestsPace(r, cr, paced)
		fmt.Fprintf(&b, " %17s %24s %17s", us(r.serverCPU[0]-atPace), us(r.serverCPU[0]-r.serverCPU[paced]), us(r.serverCPU[0]-r.serverCPU[cr]))
		if client != "in" {
			fmt.Fprintf(&b, "                 ")
			for _, i := range http {
				fmt.Fprintf(&b, " %16s", us(r.clientCPU[i]))
			}
		}
		fmt.Println(b.String())
	}
	fmt.Printf("caddy+raw@pgrest: caddy+raw paced by the load generator at the throughput pgrest reached in its last two windows.\n")
	fmt.Printf("at pgrest's pace: pgrest minus caddy+raw's CPU per request read at pgrest's throughput between caddy+raw@pgrest's and caddy+raw's.\n")
	if client == "in" {
		fmt.Printf("With -client in the load generator runs in the server's process, so its CPU is in these figures.\n")
	}
}

// goCPUGoal is the Go side's goal for items_eq: pgrest's CPU per request
// beyond caddy+raw's at the same pace, in the server's process.
const goCPUGoal = 15 * time.Microsecond

// caddyRawAtPgrestsPace is caddy+raw's server CPU per request at pgrest's
// throughput in the cell, and the two throughputs it was read between.
//
// caddy+raw@pgrest does not always reach pgrest's pace: caddy+raw can
// serve only 1.1 to 1.3 times pgrest's throughput on this machine, so
// after a pause (a garbage collection, a process scheduled away) the
// paced schedule falls behind and catches up too slowly to end every
// window on time; it ended 2-8% short over a cell before windows carried
// their shortfall into the next ones (paceDebt), and can still end a
// little short when caddy+raw has no headroom left. A slower pace
// makes its CPU per request higher (the reason for pacing it), which
// would flatter pgrest. Its CPU per request is therefore read at pgrest's
// own throughput on the line through its two measured points, paced and
// unpaced; outside them, at the nearer one.
func caddyRawAtPgrestsPace(r *cell, cr, paced int) (cpu time.Duration, slow, fast float64) {
	at := r.rate[0]
	slow, fast = r.rate[paced], r.rate[cr]
	cSlow, cFast := r.serverCPU[paced], r.serverCPU[cr]
	switch {
	case fast <= slow || at <= slow:
		return cSlow, slow, fast
	case at >= fast:
		return cFast, slow, fast
	}
	f := (at - slow) / (fast - slow)
	return cSlow + time.Duration(f*float64(cFast-cSlow)), slow, fast
}
