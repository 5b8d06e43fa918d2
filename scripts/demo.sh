#!/usr/bin/env bash
# demo.sh: the pgrest demo (make demo / make demo-stop).
#
#   demo.sh run     set up (below), then run Caddy with pgrest on
#                   http://localhost:3000 in the foreground; Ctrl-C stops it
#   demo.sh setup   set up only: PostgreSQL, the database pgrest_demo with
#                   demo/roles.sql and demo/schema.sql, the secrets, bin/caddy
#   demo.sh stop    stop the demo's PostgreSQL
#   demo.sh clean   stop it and delete the demo's database and secrets
#
# State lives in .demo/ (git-ignored): the cluster (pg, possibly a symlink
# into /tmp, see scripts/pg.sh), its port, the JWT secret and the
# authenticator's password, all made once and reused by later runs.
# PostgreSQL listens on 127.0.0.1:54329, or the next free port up to 54339.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

state=.demo
cluster=$state/pg
db=pgrest_demo
pg() { bash scripts/pg.sh "$@"; }
prog=demo
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# random N prints N random letters and digits.
random() { head -c 256 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | cut -c1-"$1"; }

# keep FILE N prints the secret in FILE, making it first if needed.
keep() {
	if [ ! -s "$1" ]; then
		(umask 077 && random "$2" >"$1")
	fi
	cat "$1"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pick_port prints the cluster's port: the one it had, else the first free one.
pick_port() {
	local p
	if [ -s "$state/port" ]; then
		cat "$state/port"
		return
	fi
	for p in $(seq 54329 54339); do
		if ! port_in_use "$p"; then
			echo "$p" >"$state/port"
			echo "$p"
			return
		fi
	done
	die "no free port in 54329-54339"
}

setup() {
	pg ensure
	mkdir -p "$state"
	port=$(pick_port)
	pg start "$cluster" "$port"

	secret=$(keep "$state/jwt_secret" 48)
	password=$(keep "$state/authenticator_password" 24)

	if [ -z "$(pg psql "$cluster" "$port" -tAc "select 1 from pg_database where datname = '$db'")" ]; then
		log "creating database $db"
		pg psql "$cluster" "$port" -qc "create database $db"
	fi
	# demo/schema.sql is one transaction: after a failed or interrupted
	# load the database is empty and is loaded again. demo/roles.sql makes
	# each role only when absent.
	if [ -z "$(pg psql "$cluster" "$port" -d "$db" -tAc "select to_regprocedure('api.login(text, text)')")" ]; then
		log "loading demo/roles.sql and demo/schema.sql into $db"
		pg psql "$cluster" "$port" -q -d "$db" -f demo/roles.sql -f demo/schema.sql
	fi
	# The realtime schema (replaced in place on every run) and the demo's
	# grants and policies for it.
	pg psql "$cluster" "$port" -q -d "$db" -f realtime/realtime.sql -f demo/realtime.sql
	# psql substitutes :'var' (quoted as a literal) only in scripts, not in -c.
	pg psql "$cluster" "$port" -q -d "$db" -v secret="$secret" -v password="$password" <<-'SQL'
		alter database pgrest_demo set app.jwt_secret = :'secret';
		alter role authenticator password :'password';
	SQL

	log "building bin/caddy"
	go build -o bin/caddy ./cmd/caddy

	export PGREST_DB_URI="postgres://authenticator:$password@127.0.0.1:$port/$db?sslmode=disable"
	export PGREST_JWT_SECRET="$secret"
}

usage() { usage_from_header 2 9; }

case "${1:-run}" in
setup)
	setup
	log "ready; PostgreSQL: bash scripts/pg.sh psql $cluster $port -d $db"
	;;
run)
	setup
	cat <<EOF

pgrest demo on http://localhost:3000 (Ctrl-C stops Caddy; make demo-stop stops PostgreSQL)

  # anyone may read the public announcements
  curl -s localhost:3000/announcements

  # log in as alice; the token lives one hour
  curl -s -X POST localhost:3000/rpc/login -H 'Content-Type: application/json' \\
       -d '{"email":"alice@example.com","pass":"alice-password"}'

  TOKEN=\$(curl -s -X POST localhost:3000/rpc/login -H 'Content-Type: application/json' \\
       -d '{"email":"alice@example.com","pass":"alice-password"}' | sed 's/.*"token" *: *"\([^"]*\)".*/\1/')

  # alice's to-dos, and only hers (row-level security)
  curl -s localhost:3000/todos -H "Authorization: Bearer \$TOKEN"

  # without a token: 401, the error object and Proxy-Status: pgrest; error=42501
  curl -si localhost:3000/todos

  # the database itself
  bash scripts/pg.sh psql $cluster $port -d $db

EOF
	exec bin/caddy run --config demo/Caddyfile --adapter caddyfile
	;;
stop)
	pg stop "$cluster"
	;;
clean)
	if [ -e "$cluster" ] || [ -L "$cluster" ]; then
		pg destroy "$cluster"
	fi
	rm -rf "$state"
	;;
*)
	usage
	;;
esac
