// Command caddy is Caddy with its standard modules plus pgrest: the
// documented alternative to xcaddy for building a custom Caddy binary.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	// Caddy's standard modules, as in the official build.
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	// pgrest: the http.handlers.pgrest module and its Caddyfile directive.
	_ "github.com/pgrest/caddy-pgrest/caddymodule"
)

func main() {
	caddycmd.Main()
}
