package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// read sends one GET /items?id=eq.N and checks the row came back.
func (e *env) read(s *site) error {
	id := rand.IntN(e.rows) + 1
	res, err := e.client.Get(s.url + "/items?id=eq." + strconv.Itoa(id))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return err
	}
	want := []byte(`[{"id":` + strconv.Itoa(id) + `,`)
	if res.StatusCode != http.StatusOK || !bytes.HasPrefix(body, want) {
		return fmt.Errorf("%s: %d %s", s.name, res.StatusCode, body)
	}
	return nil
}

// answer is where a read of /rpc/in_recovery ran.
type answer int

const (
	answerFailed answer = iota
	answerPrimary
	answerReplica
)

// where asks s where a read runs.
func (e *env) where(s *site) answer {
	res, err := e.client.Get(s.url + "/rpc/in_recovery")
	if err != nil {
		return answerFailed
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	switch {
	case err != nil || res.StatusCode != http.StatusOK:
		return answerFailed
	case string(body) == "true":
		return answerReplica
	case string(body) == "false":
		return answerPrimary
	}
	return answerFailed
}

// turn runs conc closed-loop readers of s for d and returns their
// request rate; any failed read is an error.
func (e *env) turn(ctx context.Context, s *site, conc int, d time.Duration) (float64, error) {
	var n atomic.Int64
	var firstErr atomic.Pointer[error]
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				if err := e.read(s); err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	if p := firstErr.Load(); p != nil {
		return 0, *p
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return float64(n.Load()) / time.Since(start).Seconds(), nil
}

// comparison is the outcome of compare.
type comparison struct {
	// rateA and rateB are over all of each variant's turns; total is
	// rateA/rateB.
	rateA, rateB, total float64
	// ratio is the median of the per-pair ratios a/b, low and high their
	// quartiles.
	ratio, low, high float64
}

// compare runs a and b in alternating turns and returns their rates and
// ratios.
func compare(ctx context.Context, e *env, opt options, a, b *site) (comparison, error) {
	for _, s := range []*site{a, b} {
		if _, err := e.turn(ctx, s, opt.conc, opt.warmup); err != nil {
			return comparison{}, err
		}
	}
	pairs := max(1, int(opt.dur/opt.slice))
	var sumA, sumB float64
	var ratios []float64
	for i := range pairs {
		order := []*site{a, b}
		if i%2 == 1 {
			order = []*site{b, a}
		}
		rates := map[*site]float64{}
		for _, s := range order {
			r, err := e.turn(ctx, s, opt.conc, opt.slice)
			if err != nil {
				return comparison{}, err
			}
			rates[s] = r
		}
		sumA += rates[a]
		sumB += rates[b]
		ratios = append(ratios, rates[a]/rates[b])
	}
	slices.Sort(ratios)
	n := float64(pairs)
	return comparison{rateA: sumA / n, rateB: sumB / n, total: sumA / sumB,
		ratio: quantile(ratios, 0.5), low: quantile(ratios, 0.25), high: quantile(ratios, 0.75)}, nil
}

// quantile is the q-quantile of sorted xs, interpolated.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}
