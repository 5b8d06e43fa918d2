package caddymodule

import (
	"reflect"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/pgrest/caddy-pgrest/ratelimit"
)

func TestRateLimitCaddyfile(t *testing.T) {
	var h Handler
	err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`pgrest {
		rate_limit per_user {
			key role claim:$.sub
			rate 100/s
			burst 20
			kinds read rpc:fn_name
			quota_claim $.quota
		}
		rate_limit per_ip {
			key address
			rate 10/m
		}
		rate_limit_redis {env.REDIS_URL}
		rate_limit_redis_failure closed
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []ratelimit.Definition{
		{Name: "per_user", Key: []string{"role", "claim:$.sub"}, Rate: "100/s", Burst: 20,
			Kinds: []string{"read", "rpc:fn_name"}, QuotaClaim: "$.quota"},
		{Name: "per_ip", Key: []string{"address"}, Rate: "10/m"},
	}
	if !reflect.DeepEqual(h.RateLimits, want) || h.RateLimitRedis != "{env.REDIS_URL}" || h.RateLimitRedisFailure != "closed" {
		t.Errorf("got %+v", h.RateLimitSettings)
	}
}

func TestBadRateLimitsAreRefusedNamingTheSetting(t *testing.T) {
	for _, tc := range []struct{ block, want string }{
		{"rate_limit {\n}", "rate_limit: expected a name"},
		{"rate_limit a b", "expected a block after the name"},
		{"rate_limit a {\n key role\n rate fast\n }", "rate_limit a: rate"},
		{"rate_limit a {\n key role\n rate 1/s\n burst x\n }", "rate_limit a: burst"},
		{"rate_limit a {\n key nobody\n rate 1/s\n }", "rate_limit a: key"},
		{"rate_limit a {\n key role\n rate 1/s\n kinds delete\n }", "rate_limit a: kinds"},
		{"rate_limit a {\n key role\n rate 1/s\n color red\n }", `unrecognized field "color"`},
		{"rate_limit a {\n key role\n rate 1/s\n rate 2/s\n }", "rate given more than once"},
		{"rate_limit a-b {\n key role\n rate 1/s\n }", `name "a-b"`},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("pgrest {\n" + tc.block + "\n}"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error with %q", tc.block, err, tc.want)
		}
	}
	// JSON configurations are checked by Validate, at start.
	for _, tc := range []struct {
		mod  func(*Handler)
		want string
	}{
		{func(h *Handler) {
			h.RateLimits = []ratelimit.Definition{{Name: "x", Key: []string{"role"}, Rate: "1/ms"}}
		}, "rate_limit x: rate"},
		{func(h *Handler) {
			d := ratelimit.Definition{Name: "x", Key: []string{"role"}, Rate: "1/s"}
			h.RateLimits = []ratelimit.Definition{d, d}
		}, "rate_limit x: defined twice"},
		{func(h *Handler) { h.RateLimitRedis = "redis://h:6379" }, "rate_limit_redis: set, but no rate_limit"},
		{func(h *Handler) { h.RateLimitRedisFailure = "maybe" }, "rate_limit_redis_failure: must be open or closed"},
	} {
		h := validHandler()
		tc.mod(&h)
		if err := h.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate: %v, want an error with %q", err, tc.want)
		}
	}
}
