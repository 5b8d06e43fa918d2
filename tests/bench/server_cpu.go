package main

import (
	"fmt"
	"strings"
	"time"
)

// printServerCPU prints the CPU time per request of the server's process
// alone for the HTTP variants: Caddy with pgrest and the baselines, the
// load generator's left out, as a deployment's server would count it.
// pgrest-caddy+raw@pgrest is the Go side's goal: what pgrest costs beyond
// Caddy's routing and a pipelined pgx client doing the same at the same
// pace. The load generator's own CPU per request is shown beside it: it
// moves with the pace and the size of the answers, and is no part of
// pgrest's cost.
func printServerCPU(variants []*variant, rows []*cell, client string) {
	cr, paced := indexOf(variants, "caddy+raw"), indexOf(variants, caddyRawPaced)
	http := []int{0, cr, paced}
	fmt.Println("Go side, CPU time per request, µs: the server's process alone (Caddy, pgrest, the baselines), without the load generator's")
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %4s  server:", "workload", "conc")
	for _, i := range http {
		fmt.Fprintf(&b, " %16s", variants[i].name)
	}
	fmt.Fprintf(&b, " %24s %17s", "pgrest-caddy+raw@pgrest", "pgrest-caddy+raw")
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
		fmt.Fprintf(&b, " %24s %17s", us(r.serverCPU[0]-r.serverCPU[paced]), us(r.serverCPU[0]-r.serverCPU[cr]))
		if client != "in" {
			fmt.Fprintf(&b, "                 ")
			for _, i := range http {
				fmt.Fprintf(&b, " %16s", us(r.cpu[i]-r.serverCPU[i]))
			}
		}
		fmt.Println(b.String())
	}
	fmt.Printf("caddy+raw@pgrest: caddy+raw paced by the load generator at the throughput pgrest reached in its last two windows.\n")
	if client == "in" {
		fmt.Printf("With -client in the load generator runs in the server's process, so its CPU is in these figures.\n")
	}
}

// goCPUGoal is the Go side's goal for items_eq: pgrest's CPU per request
// beyond caddy+raw's at the same pace, in the server's process.
const goCPUGoal = 15 * time.Microsecond
