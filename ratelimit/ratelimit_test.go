package ratelimit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Rate
		err  bool
	}{
		{in: "100/s", want: Rate{100, time.Second}},
		{in: "10/m", want: Rate{10, time.Minute}},
		{in: "1000/h", want: Rate{1000, time.Hour}},
		{in: "5/d", want: Rate{5, 24 * time.Hour}},
		{in: "0/s", err: true},
		{in: "-1/s", err: true},
		{in: "10/ms", err: true},
		{in: "10", err: true},
		{in: "ten/s", err: true},
	} {
		got, err := ParseRate(tc.in)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("ParseRate(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestParseQuota(t *testing.T) {
	def := Quota{Rate: Rate{10, time.Second}, Burst: 5}
	for _, tc := range []struct {
		in   string
		want Quota
		err  bool
	}{
		{in: "1000/s", want: Quota{Rate{1000, time.Second}, 5}},
		{in: "1000/s burst 200", want: Quota{Rate{1000, time.Second}, 200}},
		{in: "1000/s burst", err: true},
		{in: "1000/s burst 0", err: true},
		{in: "lots", err: true},
		{in: "", err: true},
	} {
		got, err := ParseQuota(tc.in, def)
		if (err != nil) != tc.err || got != map[bool]Quota{true: def, false: tc.want}[tc.err] {
			t.Errorf("ParseQuota(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestCompileRefusesBadDefinitionsNamingTheField(t *testing.T) {
	ok := Definition{Name: "n", Key: []string{"role"}, Rate: "1/s"}
	for _, tc := range []struct {
		mod  func(*Definition)
		want string
	}{
		{func(d *Definition) { d.Name = "a-b" }, "name"},
		{func(d *Definition) { d.Rate = "fast" }, "rate_limit n: rate"},
		{func(d *Definition) { d.Burst = -1 }, "rate_limit n: burst"},
		{func(d *Definition) { d.Key = nil }, "rate_limit n: key"},
		{func(d *Definition) { d.Key = []string{"ip"} }, "rate_limit n: key"},
		{func(d *Definition) { d.Key = []string{"role", "role"} }, "rate_limit n: key"},
		{func(d *Definition) { d.Key = []string{"claim:$["} }, "rate_limit n: key"},
		{func(d *Definition) { d.Kinds = []string{"delete"} }, "rate_limit n: kinds"},
		{func(d *Definition) { d.Kinds = []string{"rpc:"} }, "rate_limit n: kinds"},
		{func(d *Definition) { d.QuotaClaim = "$[" }, "rate_limit n: quota_claim"},
	} {
		d := ok
		tc.mod(&d)
		if _, err := Compile(d); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%+v) = %v, want an error naming %q", d, err, tc.want)
		}
	}
	if _, err := CompileAll([]Definition{ok, ok}); err == nil {
		t.Error("two limits of one name compiled")
	}
	if _, err := Compile(ok); err != nil {
		t.Errorf("Compile(%+v): %v", ok, err)
	}
}

// clock is a Memory whose time the test moves.
func memoryAt(now *time.Time) *Memory {
	m := NewMemory()
	m.epoch = *now
	m.now = func() time.Time { return *now }
	return m
}

func TestMemoryAllowsTheBurstThenTheRate(t *testing.T) {
	now := time.Unix(1000, 0)
	m := memoryAt(&now)
	q := Quota{Rate: Rate{10, time.Second}, Burst: 3}
	for i, want := range []Result{
		{Allowed: true, Remaining: 2, ResetAfter: 100 * time.Millisecond},
		{Allowed: true, Remaining: 1, ResetAfter: 200 * time.Millisecond},
		{Allowed: true, Remaining: 0, ResetAfter: 300 * time.Millisecond},
		{Allowed: false, RetryAfter: 100 * time.Millisecond, ResetAfter: 300 * time.Millisecond},
	} {
		if got, _ := m.Allow(context.Background(), "k", q); got != want {
			t.Errorf("request %d: %+v, want %+v", i+1, got, want)
		}
	}
	if got, _ := m.Allow(context.Background(), "other", q); !got.Allowed {
		t.Error("another key was refused")
	}
	now = now.Add(100 * time.Millisecond)
	if got, _ := m.Allow(context.Background(), "k", q); !got.Allowed {
		t.Error("refused after one interval")
	}
	if got, _ := m.Allow(context.Background(), "k", q); got.Allowed {
		t.Error("two requests allowed after one interval")
	}
	// After the sweep, keys back to a full burst are gone from the
	// shard touched since: only the key just counted is left there.
	for i := range 200 {
		_, _ = m.Allow(context.Background(), fmt.Sprint("x", i), q)
	}
	now = now.Add(2 * sweepEvery)
	_, _ = m.Allow(context.Background(), "k", q)
	if shard := m.shards[maphash.String(m.seed, "k")%uint64(len(m.shards))].tat; len(shard) != 1 {
		t.Errorf("%d keys kept in the shard after the sweep, want 1", len(shard))
	}
}

func TestKeysSeparateByTheirParts(t *testing.T) {
	l, err := Compile(Definition{Name: "n", Key: []string{"address", "claim:$.sub"}, Rate: "1/s"})
	if err != nil {
		t.Fatal(err)
	}
	claims := func(s string) map[string]any {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		_ = d.Decode(&m)
		return m
	}
	a := l.keyOf(&Request{Address: "1.2.3.4", Claims: claims(`{"sub":"alice"}`)})
	b := l.keyOf(&Request{Address: "1.2.3.4", Claims: claims(`{"sub":"bob"}`)})
	c := l.keyOf(&Request{Address: "1.2.3.5", Claims: claims(`{"sub":"alice"}`)})
	n := l.keyOf(&Request{Address: "1.2.3.4", Claims: claims(`{"sub":7}`)})
	none := l.keyOf(&Request{Address: "1.2.3.4"})
	if a == b || a == c || a == n || a == none || n == none {
		t.Errorf("keys collide: %q %q %q %q %q", a, b, c, n, none)
	}
	if again := l.keyOf(&Request{Address: "1.2.3.4", Claims: claims(`{"sub":"alice","x":1}`)}); again != a {
		t.Errorf("the same parts made keys %q and %q", a, again)
	}
}

func TestQuotaComesFromTheRoleThenTheClaimThenTheLimit(t *testing.T) {
	l, err := Compile(Definition{Name: "n", Key: []string{"role"}, Rate: "10/s", Burst: 2, QuotaClaim: "$.quota"})
	if err != nil {
		t.Fatal(err)
	}
	def := Quota{Rate{10, time.Second}, 2}
	roleQuota := func(s string) Quota {
		q, err := ParseRoleQuota(s)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	for _, tc := range []struct {
		role   string
		claims map[string]any
		want   Quota
	}{
		{"", nil, def},
		{"", map[string]any{"quota": "50/m"}, Quota{Rate{50, time.Minute}, 2}},
		{"", map[string]any{"quota": "a lot"}, def},
		{"", map[string]any{"quota": json.Number("5")}, def},
		{"", map[string]any{"quota": []any{"x"}}, def},
		{"", map[string]any{"quota": "99999999999999999999/s"}, def},
		{"", map[string]any{"quota": "10/s burst 99999999999"}, def},
		{"100/s burst 9", map[string]any{"quota": "50/m"}, Quota{Rate{100, time.Second}, 9}},
		// A role's quota without a burst takes the limit's.
		{"100/s", nil, Quota{Rate{100, time.Second}, 2}},
	} {
		var rq Quota
		if tc.role != "" {
			rq = roleQuota(tc.role)
		}
		if got := l.quotaFor(rq, tc.role != "", tc.claims); got != tc.want {
			t.Errorf("quotaFor(%q, %v) = %v, want %v", tc.role, tc.claims, got, tc.want)
		}
	}
	for _, bad := range []string{"garbage", "100/s burst", "0/s", "100/s burst 0", ""} {
		if _, err := ParseRoleQuota(bad); err == nil {
			t.Errorf("ParseRoleQuota(%q) took it", bad)
		}
	}
}

func TestLimitsApplyToTheirKinds(t *testing.T) {
	for _, tc := range []struct {
		kinds          []string
		kind, function string
		want           bool
	}{
		{nil, KindWrite, "", true},
		{[]string{"read"}, KindRead, "", true},
		{[]string{"read"}, KindWrite, "", false},
		{[]string{"rpc:slow"}, KindRPC, "slow", true},
		{[]string{"rpc:slow"}, KindRPC, "fast", false},
		{[]string{"rpc"}, KindRPC, "fast", true},
	} {
		l, err := Compile(Definition{Name: "n", Key: []string{"role"}, Rate: "1/s", Kinds: tc.kinds})
		if err != nil {
			t.Fatal(err)
		}
		if got := l.applies(tc.kind, tc.function); got != tc.want {
			t.Errorf("kinds %v: applies(%s, %q) = %v", tc.kinds, tc.kind, tc.function, got)
		}
	}
}

func TestCheckWritesHeadersAndStopsAtTheFirstRefusal(t *testing.T) {
	now := time.Unix(1000, 0)
	limits, err := CompileAll([]Definition{
		{Name: "per_role", Key: []string{"role"}, Rate: "100/s", Burst: 10},
		{Name: "per_ip", Key: []string{"address"}, Rate: "1/m", Burst: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	lim := New(limits, memoryAt(&now), false, nil)
	r := &Request{Address: "a", Role: "web", Kind: KindRead}
	d := lim.Check(context.Background(), r, nil)
	if d.Refused != nil || d.Policy != `"per_role";q=100;w=1, "per_ip";q=1;w=60` ||
		d.State != `"per_role";r=9;t=1, "per_ip";r=0;t=60` {
		t.Errorf("first request: %+v", d)
	}
	d = lim.Check(context.Background(), r, map[string]Quota{"per_role": {Rate: Rate{5, time.Second}}})
	if d.Refused == nil || d.Refused.Name() != "per_ip" || d.RetryAfter != time.Minute || CeilSeconds(d.RetryAfter) != 60 ||
		d.Policy != `"per_role";q=5;w=1, "per_ip";q=1;w=60` || !strings.HasSuffix(d.State, `"per_ip";r=0;t=60`) {
		t.Errorf("second request: %+v", d)
	}
}

// failingStore fails every call.
type failingStore struct{ calls int }

func (f *failingStore) Allow(context.Context, string, Quota) (Result, error) {
	f.calls++
	return Result{}, errors.New("connection refused")
}

func TestAFailingStoreFailsOpenOrClosed(t *testing.T) {
	limits, _ := CompileAll([]Definition{{Name: "n", Key: []string{"role"}, Rate: "1/s"}})
	for _, closed := range []bool{false, true} {
		store := &failingStore{}
		var reported []string
		lim := New(limits, store, closed, func(limit string, _ error) { reported = append(reported, limit) })
		for range 3 {
			d := lim.Check(context.Background(), &Request{Role: "web", Kind: KindRead}, nil)
			if (d.Refused != nil) != closed || d.StoreFailed != closed || d.Policy != "" {
				t.Errorf("closed=%v: %+v", closed, d)
			}
		}
		// The store is left alone for a second after a failure.
		if store.calls != 1 || len(reported) != 1 || reported[0] != "n" {
			t.Errorf("closed=%v: %d store calls, reported %v; want 1 and [n]", closed, store.calls, reported)
		}
	}
}

func TestCeilSeconds(t *testing.T) {
	for d, want := range map[time.Duration]int64{0: 0, time.Millisecond: 1, time.Second: 1, 1001 * time.Millisecond: 2} {
		if got := CeilSeconds(d); got != want {
			t.Errorf("CeilSeconds(%v) = %d, want %d", d, got, want)
		}
	}
}

func TestAQuotaThatChangesKeepsTheCountUsed(t *testing.T) {
	now := time.Unix(1000, 0)
	m := memoryAt(&now)
	slow := Quota{Rate: Rate{1, 24 * time.Hour}, Burst: 3}
	for range 2 {
		_, _ = m.Allow(context.Background(), "k", slow)
	}
	// Two of three used: under 100/s burst 5, three are left at once.
	fast := Quota{Rate: Rate{100, time.Second}, Burst: 5}
	var got []bool
	for range 4 {
		res, _ := m.Allow(context.Background(), "k", fast)
		got = append(got, res.Allowed)
	}
	if fmt.Sprint(got) != "[true true true false]" {
		t.Errorf("under the new quota: %v, want three allowed", got)
	}
	// Used up under the fast quota, the slow one owes a whole burst:
	// the next request waits a day, not 10ms.
	res, _ := m.Allow(context.Background(), "k", slow)
	if res.Allowed || res.RetryAfter != 24*time.Hour {
		t.Errorf("back under the slow quota: %+v, want refused for a day", res)
	}
}

// A request is counted at the time it holds its key's lock, not at the
// time it asked: a request that waited for the lock while another was
// counted must not be counted before it, owing more than the burst. The
// clock here reports whether the key's shard is locked when it is read.
func TestMemoryReadsTheClockUnderTheLock(t *testing.T) {
	m := NewMemory()
	s := &m.shards[maphash.String(m.seed, "k")%uint64(len(m.shards))]
	m.now = func() time.Time {
		if s.mu.TryLock() {
			s.mu.Unlock()
			t.Error("the clock was read without the key's lock held")
		}
		return time.Now()
	}
	q := Quota{Rate: Rate{Count: 10, Period: time.Second}, Burst: 1}
	if _, err := m.Allow(context.Background(), "k", q); err != nil {
		t.Fatal(err)
	}
}
