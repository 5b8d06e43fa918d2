package main

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/pgrest/caddy-pgrest/tests/pgtest"
)

// serveControl serves, on a loopback port of its own, what a realtime
// suite's tests do to the database beside the API: POST
// /restart-postgres restarts the throwaway PostgreSQL (a fast shutdown,
// connections broken, as an operator's restart) and answers 204 once it
// is up again, or 500 with pg_ctl's error. It returns the base URL and
// the function that stops serving.
func serveControl(cluster *pgtest.Cluster) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /restart-postgres", func(w http.ResponseWriter, _ *http.Request) {
		log.Printf("restarting PostgreSQL for a test")
		if err := cluster.Restart("fast"); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
	return "http://" + ln.Addr().String(), stop, nil
}
