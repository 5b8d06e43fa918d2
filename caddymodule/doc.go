// Package caddymodule registers pgrest with Caddy: the http.handlers.pgrest
// module, its configuration, the pgrest Caddyfile directive and the glue
// between Caddy's HTTP server, jwtauth and the executor.
package caddymodule
