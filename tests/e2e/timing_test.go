package e2e

import (
	"regexp"
	"testing"
)

func TestServerTiming(t *testing.T) {
	sql(t, `create table api.timing(id int); grant select on api.timing to web_anon;`)
	t.Cleanup(func() { sql(t, "drop table api.timing") })
	t.Run("with server_timing_enabled each phase is reported in milliseconds", func(t *testing.T) {
		s := startServer(t, "server_timing_enabled true")
		res := s.get(t, "/timing")
		want := regexp.MustCompile(`^jwt;dur=\d+\.\d, parse;dur=\d+\.\d, plan;dur=\d+\.\d, transaction;dur=\d+\.\d, response;dur=\d+\.\d$`)
		if got := res.Header.Get("Server-Timing"); res.Status != 200 || !want.MatchString(got) {
			t.Fatalf("status %d, Server-Timing %q", res.Status, got)
		}
	})
	t.Run("without it no Server-Timing header is sent", func(t *testing.T) {
		s := startServer(t)
		if got := s.get(t, "/timing").Header.Get("Server-Timing"); got != "" {
			t.Fatalf("Server-Timing %q", got)
		}
	})
}
