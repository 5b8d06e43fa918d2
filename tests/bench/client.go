package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"
)

// A real client of pgrest runs in a process of its own. In the bench's
// process, the HTTP client's allocations (a request, its headers, the
// response, per request) count towards the garbage collections that
// pgrest and Caddy live through: each one takes a share of the two cores
// and makes goroutines that allocate help with marking, which lands on
// whichever requests are in flight. With -client own (the default) the
// bench starts itself again as a load generator (runAsClient) and sends
// the HTTP variants' load, pgrest's and caddy+raw's, from there: the
// bench's process then holds what a server would hold, Caddy, pgrest and
// the idle baselines. The client process reports each window's requests,
// latencies and its own CPU time, which the process column adds to the
// bench's, so the CPU per request covers the same work as with -client
// in; the server-side table (printServerCPU) leaves it out. -client in
// sends from the bench's process, as before; -client both measures both
// ways side by side (variants pgrest:in and caddy+raw:in beside pgrest
// and caddy+raw), to see what the framing changes.

// runAsClient makes the bench binary run as the load generator.
const runAsClient = "PGREST_BENCH_RUN_CLIENT"

// clientSetup is the first line the bench sends the load generator.
type clientSetup struct {
	Authz   string
	MaxConc int
	Targets map[string]string // base URLs by variant name
	// Headers are the headers a variant's requests add, by variant name.
	Headers   map[string]http.Header
	Workloads []clientWorkload
}

// clientWorkload is what the load generator needs of a workload to send
// it and check the answer.
type clientWorkload struct {
	Name, Method, Target, Prefer string
	ReqBody, Body                []byte
	Status                       int
}

// clientWindow asks the load generator for one window of load.
type clientWindow struct {
	Variant, Workload string
	Conc              int
	Dur               time.Duration
	KeepLatency       bool
	Rate              float64
}

// clientSample is what the load generator measured in a window: sample's
// fields, and its own CPU time over the window and a garbage collection
// after it.
type clientSample struct {
	Done, Served, Errs int64
	FirstErr           string
	Window             time.Duration
	Latencies          []time.Duration
	CPU                time.Duration
}

// runClient is the load generator's main: it reads the set-up, then
// serves windows one at a time, each answered on one line, until its
// input ends.
func runClient() {
	in := bufio.NewReader(os.Stdin)
	dec := json.NewDecoder(in)
	enc := json.NewEncoder(os.Stdout)
	var setup clientSetup
	if err := dec.Decode(&setup); err != nil {
		fmt.Fprintln(os.Stderr, "bench client:", err)
		os.Exit(2)
	}
	client := &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        2 * len(setup.Targets) * setup.MaxConc,
		MaxIdleConnsPerHost: 2 * setup.MaxConc,
		IdleConnTimeout:     5 * time.Minute,
		DisableCompression:  true,
	}}
	byName := map[string]*workload{}
	for _, w := range setup.Workloads {
		byName[w.Name] = &workload{name: w.Name, method: w.Method, target: w.Target, prefer: w.Prefer,
			reqBody: w.ReqBody, body: w.Body, status: w.Status}
	}
	// Each worker keeps its op, and its buffer, from window to window.
	ops := map[string][]op{}
	for {
		var w clientWindow
		if err := dec.Decode(&w); err != nil {
			if errors.Is(err, io.EOF) {
				return
			}
			fmt.Fprintln(os.Stderr, "bench client:", err)
			os.Exit(2)
		}
		key := fmt.Sprintf("%s %s %d", w.Variant, w.Workload, w.Conc)
		if ops[key] == nil {
			// A target of the workload's own (the route sites), or the
			// variant's.
			base, ok := setup.Targets[w.Variant+"/"+w.Workload]
			if !ok {
				base = setup.Targets[w.Variant]
			}
			e := &env{client: client, baseURL: base, authz: setup.Authz, header: setup.Headers[w.Variant]}
			wl := byName[w.Workload]
			if e.baseURL == "" || wl == nil {
				fmt.Fprintf(os.Stderr, "bench client: no variant %q or workload %q\n", w.Variant, w.Workload)
				os.Exit(2)
			}
			ops[key] = make([]op, w.Conc)
			for i := range ops[key] {
				ops[key][i] = e.httpOp(wl)
			}
		}
		c0 := processCPU()
		s := measurePaced(context.Background(), w.Dur, ops[key], w.KeepLatency, w.Rate)
		runtime.GC()
		out := clientSample{Done: s.done, Served: s.served, Errs: s.errs, Window: s.window,
			Latencies: s.latencies, CPU: processCPU() - c0}
		if s.firstErr != nil {
			out.FirstErr = s.firstErr.Error()
		}
		if err := enc.Encode(&out); err != nil {
			os.Exit(2)
		}
	}
}

// clientProcess is the load generator, seen from the bench.
type clientProcess struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	enc *json.Encoder
	dec *json.Decoder
	mu  sync.Mutex
}

// startClient starts the bench binary again as the load generator of the
// HTTP variants, sending to targets (base URLs by variant name).
func startClient(e *env, targets map[string]string, maxConc int) (*clientProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), runAsClient+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &clientProcess{cmd: cmd, in: in, enc: json.NewEncoder(in), dec: json.NewDecoder(bufio.NewReader(out))}
	setup := clientSetup{Authz: e.authz, MaxConc: maxConc, Targets: targets, Headers: e.diagHeaders}
	for _, wl := range e.workloads {
		setup.Workloads = append(setup.Workloads, clientWorkload{Name: wl.name, Method: wl.method, Target: wl.target,
			Prefer: wl.prefer, ReqBody: wl.reqBody, Body: wl.body, Status: wl.status})
	}
	if err := c.enc.Encode(&setup); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// window runs one window of load in the load generator. A failure to
// talk to it counts as a failed request, which stops the run.
func (c *clientProcess) window(variant string, wl *workload, conc int, dur time.Duration, keepLatency bool, rate float64) *sample {
	c.mu.Lock()
	defer c.mu.Unlock()
	fail := func(err error) *sample {
		return &sample{errs: 1, firstErr: fmt.Errorf("the load generator: %w", err), window: dur}
	}
	if err := c.enc.Encode(&clientWindow{Variant: variant, Workload: wl.name, Conc: conc, Dur: dur,
		KeepLatency: keepLatency, Rate: rate}); err != nil {
		return fail(err)
	}
	var r clientSample
	if err := c.dec.Decode(&r); err != nil {
		return fail(err)
	}
	s := &sample{done: r.Done, served: r.Served, errs: r.Errs, window: r.Window, latencies: r.Latencies, clientCPU: r.CPU}
	if r.FirstErr != "" {
		s.firstErr = errors.New(r.FirstErr)
	}
	return s
}

// close ends the load generator: its input closed, it returns.
func (c *clientProcess) close() {
	_ = c.in.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}
