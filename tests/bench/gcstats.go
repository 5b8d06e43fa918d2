package main

import (
	"runtime/metrics"
	"time"
)

// gcStats is what the Go runtime tells of garbage collection in this
// process: collections finished, and the CPU time spent marking by
// goroutines made to help (assist: it delays the request that
// allocates) and in all of the collector's work. The runtime updates the
// CPU figures as collections end, so they are read over many windows.
type gcStats struct {
	cycles         uint64
	assist, gcWork time.Duration
}

var gcMetrics = []metrics.Sample{
	{Name: "/gc/cycles/total:gc-cycles"},
	{Name: "/cpu/classes/gc/mark/assist:cpu-seconds"},
	{Name: "/cpu/classes/gc/total:cpu-seconds"},
}

// readGC reads the runtime's counters. The bench measures one window at a
// time, so one set of samples serves.
func readGC() gcStats {
	metrics.Read(gcMetrics)
	seconds := func(s metrics.Sample) time.Duration {
		if s.Value.Kind() != metrics.KindFloat64 {
			return 0
		}
		return time.Duration(s.Value.Float64() * float64(time.Second))
	}
	var g gcStats
	if gcMetrics[0].Value.Kind() == metrics.KindUint64 {
		g.cycles = gcMetrics[0].Value.Uint64()
	}
	g.assist, g.gcWork = seconds(gcMetrics[1]), seconds(gcMetrics[2])
	return g
}

func (g gcStats) minus(o gcStats) gcStats {
	return gcStats{cycles: g.cycles - o.cycles, assist: g.assist - o.assist, gcWork: g.gcWork - o.gcWork}
}

func (g *gcStats) add(o gcStats) {
	g.cycles += o.cycles
	g.assist += o.assist
	g.gcWork += o.gcWork
}
