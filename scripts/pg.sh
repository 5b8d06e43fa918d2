#!/usr/bin/env bash
# pg.sh: throwaway PostgreSQL clusters for pgrest's tests and demo.
#
#   pg.sh ensure                 install PostgreSQL (apt-get, as root or through sudo) unless a server is found
#   pg.sh ensure-postgis         install PostGIS 3 for the server's major version unless it is there
#   pg.sh start   DIR PORT       initdb DIR if needed, then start it on 127.0.0.1:PORT
#   pg.sh stop    DIR [MODE]     stop the cluster (no-op when it is not running);
#                                MODE is pg_ctl's: smart, fast (default) or immediate
#   pg.sh status  DIR            pg_ctl status; exit 0 running, 3 stopped, 4 no cluster
#   pg.sh psql    DIR PORT [ARGS...]   psql as the superuser over the unix socket
#   pg.sh dsn     DIR PORT [DB]  print the superuser URL (TCP, password)
#   pg.sh destroy DIR            stop the cluster (and its PgBouncer) and delete its files
#   pg.sh pgbouncer-ensure       install PgBouncer (apt-get, as root or through sudo) unless found
#   pg.sh redis-ensure           install redis-server (apt-get) unless found: the rate limit
#                                tests count limits shared by several nodes in Redis
#   pg.sh pgbouncer-start DIR PORT BPORT   PgBouncer in transaction pooling mode on
#                                127.0.0.1:BPORT in front of the cluster DIR on PORT
#   pg.sh pgbouncer-stop  DIR    stop that PgBouncer
#   pg.sh replica-init PDIR PPORT DIR   make DIR a streaming replica of the
#                                running cluster PDIR on PPORT (pg_basebackup -R
#                                with a replication slot); start it with `start`
#
# Who runs the server: PostgreSQL refuses to run as root. As a normal user the
# server runs as that user. As root it runs as `postgres` (made by Debian's
# package) or, when that user is absent, as a system user `pgrest` created here.
#
# Where the files live: the server user must be able to reach DIR, which it
# cannot when DIR is under a private folder such as /root. Rather than loosen
# the permissions of someone's folders, pg.sh then keeps the cluster in
# /tmp/pgrest-<hash of DIR's absolute path> and makes DIR a symlink to it;
# every subcommand follows that symlink, and `destroy` removes both.
#
# Authentication: `trust` on the unix socket (inside DIR, so only the server
# user and root can reach it) and scram-sha-256 for TCP on 127.0.0.1, so tests
# connect as login roles with real passwords, as pgrest does in production.
# The superuser is always `postgres`; its random password is kept in
# DIR/pgrest-superuser.pw and printed by `dsn`.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() { usage_from_header 2 19; }

bindir() {
	find_pg_bindir || die "no PostgreSQL server found (initdb); run: bash scripts/pg.sh ensure"
}

cmd_ensure() {
	local d
	if d=$(find_pg_bindir); then
		log "found $("$d/postgres" --version) in $d"
		return 0
	fi
	log "PostgreSQL server not found; installing Debian's postgresql package"
	apt_install "PostgreSQL server" postgresql
	d=$(find_pg_bindir) || die "apt-get installed postgresql but no initdb was found"
	log "installed $("$d/postgres" --version) in $d"
}

# cmd_ensure_postgis installs Debian's PostGIS 3 package for the major
# version of the server the clusters run on (postgresql-15-postgis-3 for
# PostgreSQL 15), unless that server already has the extension.
cmd_ensure_postgis() {
	local d major share pkg
	d=$(bindir)
	major=$(pg_major "$("$d/postgres" --version)")
	share=$("$d/pg_config" --sharedir 2>/dev/null || echo "/usr/share/postgresql/$major")
	if [ -f "$share/extension/postgis.control" ]; then
		log "found PostGIS for PostgreSQL $major"
		return 0
	fi
	pkg=postgresql-$major-postgis-3
	log "PostGIS not found; installing $pkg"
	apt_install PostGIS "$pkg"
	[ -f "$share/extension/postgis.control" ] || die "apt-get installed $pkg but $share/extension/postgis.control is missing"
	log "installed $pkg"
}

# server_user prints the OS user that owns and runs a new cluster.
server_user() {
	if ! is_root; then
		id -un
		return
	fi
	if id postgres >/dev/null 2>&1; then
		echo postgres
		return
	fi
	if ! id pgrest >/dev/null 2>&1; then
		log "creating system user pgrest to run PostgreSQL (it refuses to run as root)"
		useradd --system --user-group --no-create-home --home-dir / \
			--shell /usr/sbin/nologin pgrest
	fi
	echo pgrest
}

# as_user USER CMD... runs CMD as USER from /, so the server user never
# needs access to the caller's working directory.
as_user() {
	local user=$1
	shift
	if [ "$(id -un)" = "$user" ]; then
		(cd / && "$@")
	elif is_root; then
		(cd / && runuser -u "$user" -- "$@")
	else
		die "the cluster belongs to $user; run this as $user or as root"
	fi
}

# can_reach USER DIR succeeds when USER can enter DIR (and so all of its parents).
can_reach() {
	! is_root || (cd / && runuser -u "$1" -- test -x "$2")
}

# data_dir DIR prints where the cluster of DIR lives: the target of the
# symlink DIR, or DIR itself.
data_dir() {
	if [ -L "$1" ]; then
		readlink "$1"
	else
		realpath -m -- "$1"
	fi
}

# prepare_dir DIR USER creates the folder for a new cluster and prints its path.
prepare_dir() {
	local dir=$1 user=$2 abs parent data
	if [ -L "$dir" ]; then
		data=$(readlink "$dir")
	else
		abs=$(realpath -m -- "$dir")
		parent=$(dirname "$abs")
		mkdir -p "$parent"
		if [ -d "$abs" ] && [ -n "$(ls -A "$abs")" ]; then
			die "$abs exists, is not empty and holds no cluster"
		fi
		if can_reach "$user" "$parent"; then
			data=$abs
		else
			[ ! -d "$abs" ] || rmdir "$abs"
			data=/tmp/pgrest-$(printf '%s' "$abs" | sha256sum | cut -c1-16)
			log "$user cannot reach $parent; keeping the cluster in $data (symlinked from $abs)"
			ln -s "$data" "$abs"
		fi
	fi
	mkdir -p "$data"
	chmod 700 "$data"
	is_root && chown "$user:" "$data"
	echo "$data"
}

owner_of() { stat -c %U "$1"; }

check_port() {
	[[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ] && [ "$1" -lt 65536 ] || die "bad port: $1"
}

init_cluster() {
	local data=$1 user=$2 bin=$3 pwfile locale=C
	locale -a 2>/dev/null | grep -qix 'c\.utf-\?8' && locale=C.UTF-8
	pwfile=$data/pgrest-superuser.pw
	# The password is written before initdb, which wants an empty folder, so
	# it goes to a temporary file first.
	local tmp
	tmp=$(mktemp)
	head -c 64 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | cut -c1-24 >"$tmp"
	is_root && chown "$user:" "$tmp"
	log "initdb $data (owner $user, superuser postgres, locale $locale)"
	if ! as_user "$user" "$bin/initdb" -D "$data" -U postgres --pwfile="$tmp" \
		--auth-local=trust --auth-host=scram-sha-256 \
		--encoding=UTF8 --locale="$locale" --no-sync >"$tmp.log" 2>&1; then
		cat "$tmp.log" >&2
		rm -f "$tmp" "$tmp.log"
		die "initdb failed"
	fi
	mv "$tmp" "$pwfile"
	chmod 600 "$pwfile"
	rm -f "$tmp.log"
	# Durability is traded for speed: the cluster is thrown away after use.
	cat >>"$data/postgresql.conf" <<EOF

# --- pgrest throwaway cluster (scripts/pg.sh); the port is given at start ---
listen_addresses = '127.0.0.1'
unix_socket_directories = '$data'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
shared_buffers = 128MB
# pg_stat_statements shows which statements reached the server (the cost
# guard's tests check that a refused statement never ran).
shared_preload_libraries = 'pg_stat_statements'
EOF
	as_user "$user" mkdir -p "$data/log"
}

# running_port DATA prints the port of the running cluster, or fails.
running_port() {
	local data=$1
	as_user "$(owner_of "$data")" "$(bindir)/pg_ctl" -D "$data" status >/dev/null 2>&1 || return 1
	sed -n 4p "$data/postmaster.pid"
}

cmd_start() {
	[ $# -eq 2 ] || usage
	local dir=$1 port=$2 bin user data current
	check_port "$port"
	bin=$(bindir)
	data=$(data_dir "$dir")
	if [ -f "$data/PG_VERSION" ]; then
		user=$(owner_of "$data")
	else
		user=$(server_user)
		data=$(prepare_dir "$dir" "$user")
		init_cluster "$data" "$user" "$bin"
	fi
	if current=$(running_port "$data"); then
		[ "$current" = "$port" ] || die "$dir is already running on port $current, not $port"
		log "$dir is already running on port $port"
		return 0
	fi
	local logfile=$data/log/postgresql.log seen=0
	# A failed start shows its own lines of the log, not an earlier one's.
	[ ! -f "$logfile" ] || seen=$(wc -l <"$logfile")
	log "starting $("$bin/postgres" --version) on 127.0.0.1:$port as $user (log: $logfile)"
	if ! as_user "$user" "$bin/pg_ctl" -D "$data" -l "$logfile" \
		-o "-p $port" -w -t 60 start >/dev/null; then
		tail -n +"$((seen + 1))" "$logfile" 2>/dev/null | tail -n 20 >&2 || true
		die "could not start the cluster in $dir on port $port"
	fi
}

cmd_stop() {
	[ $# -eq 1 ] || [ $# -eq 2 ] || usage
	local data mode=${2:-fast}
	case $mode in
	smart | fast | immediate) ;;
	*) die "stop mode $mode: use smart, fast or immediate" ;;
	esac
	data=$(data_dir "$1")
	if [ ! -f "$data/PG_VERSION" ]; then
		log "no cluster in $1"
		return 0
	fi
	if ! running_port "$data" >/dev/null; then
		log "$1 is not running"
		return 0
	fi
	as_user "$(owner_of "$data")" "$(bindir)/pg_ctl" -D "$data" -m "$mode" -w -t 60 stop >/dev/null
	log "stopped $1 ($mode)"
}

cmd_status() {
	[ $# -eq 1 ] || usage
	local data
	data=$(data_dir "$1")
	if [ ! -f "$data/PG_VERSION" ]; then
		echo "no cluster in $1"
		return 4
	fi
	as_user "$(owner_of "$data")" "$(bindir)/pg_ctl" -D "$data" status
}

cmd_psql() {
	[ $# -ge 2 ] || usage
	local dir=$1 port=$2 data
	shift 2
	check_port "$port"
	data=$(data_dir "$dir")
	[ -f "$data/PG_VERSION" ] || die "no cluster in $dir"
	PGHOST=$data PGPORT=$port PGUSER=postgres PGDATABASE=postgres \
		exec "$(bindir)/psql" -X -v ON_ERROR_STOP=1 "$@"
}

cmd_dsn() {
	[ $# -ge 2 ] && [ $# -le 3 ] || usage
	local data
	check_port "$2"
	data=$(data_dir "$1")
	[ -f "$data/pgrest-superuser.pw" ] || die "no cluster in $1"
	printf 'postgres://postgres:%s@127.0.0.1:%s/%s?sslmode=disable\n' \
		"$(cat "$data/pgrest-superuser.pw")" "$2" "${3:-postgres}"
}

cmd_destroy() {
	[ $# -eq 1 ] || usage
	local dir=$1 data
	data=$(data_dir "$dir")
	if [ -f "$data/PG_VERSION" ]; then
		cmd_pgbouncer_stop "$dir"
		cmd_stop "$dir"
		rm -rf -- "$data"
		log "removed the cluster in $data"
	elif [ -d "$data" ] && [ -n "$(ls -A "$data")" ]; then
		die "$data holds no cluster; not removing it"
	else
		rm -rf -- "$data"
	fi
	[ ! -L "$dir" ] || rm -f -- "$dir"
}

find_pgbouncer() {
	local p
	for p in "$(command -v pgbouncer 2>/dev/null)" /usr/sbin/pgbouncer; do
		if [ -n "$p" ] && [ -x "$p" ]; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

cmd_redis_ensure() {
	if command -v redis-server >/dev/null 2>&1; then
		log "found $(redis-server --version | head -1)"
		return 0
	fi
	apt_install Redis redis-server
	command -v redis-server >/dev/null 2>&1 || die "apt-get installed redis-server but it was not found"
	log "installed $(redis-server --version | head -1)"
}

cmd_pgbouncer_ensure() {
	local p
	if p=$(find_pgbouncer); then
		log "found $("$p" --version | head -1) at $p"
		return 0
	fi
	apt_install PgBouncer pgbouncer
	p=$(find_pgbouncer) || die "apt-get installed pgbouncer but it was not found"
	log "installed $("$p" --version | head -1)"
}

# PgBouncer's files live in the cluster's folder under pgbouncer/, owned by
# the server user, who runs it (PgBouncer refuses to run as root too). It
# logs clients in with SCRAM, looking their secrets up in pg_shadow as the
# superuser (auth_query), so roles that fixtures create later work.
cmd_pgbouncer_start() {
	[ $# -eq 3 ] || usage
	local dir=$1 port=$2 bport=$3 data user bin conf pw
	check_port "$port"
	check_port "$bport"
	bin=$(find_pgbouncer) || die "PgBouncer not found; run: bash scripts/pg.sh pgbouncer-ensure"
	data=$(data_dir "$dir")
	[ -f "$data/PG_VERSION" ] || die "no cluster in $dir"
	user=$(owner_of "$data")
	conf=$data/pgbouncer
	pw=$(cat "$data/pgrest-superuser.pw")
	as_user "$user" mkdir -p "$conf"
	printf '"postgres" "%s"\n' "$pw" | as_user "$user" sh -c "umask 077; cat >'$conf/userlist.txt'"
	as_user "$user" sh -c "cat >'$conf/pgbouncer.ini'" <<EOF
[databases]
* = host=127.0.0.1 port=$port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bport
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $conf/userlist.txt
auth_user = postgres
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 40
ignore_startup_parameters = extra_float_digits
pidfile = $conf/pgbouncer.pid
logfile = $conf/pgbouncer.log
admin_users = postgres
EOF
	as_user "$user" "$bin" -d "$conf/pgbouncer.ini" || die "PgBouncer did not start; see $conf/pgbouncer.log"
	# -d returns once it has forked; wait until it listens.
	for _ in $(seq 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$bport") 2>/dev/null; then
			break
		fi
		sleep 0.1
	done
	(exec 3<>"/dev/tcp/127.0.0.1/$bport") 2>/dev/null || die "PgBouncer does not listen on $bport; see $conf/pgbouncer.log"
	log "PgBouncer (transaction pooling) on 127.0.0.1:$bport in front of 127.0.0.1:$port"
}

cmd_pgbouncer_stop() {
	[ $# -eq 1 ] || usage
	local data pidfile pid
	data=$(data_dir "$1")
	pidfile=$data/pgbouncer/pgbouncer.pid
	[ -f "$pidfile" ] || return 0
	pid=$(cat "$pidfile")
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	log "stopped PgBouncer of $1"
}

# cmd_replica_init makes DIR a hot standby of the running cluster PDIR:
# pg_basebackup over the primary's unix socket as the superuser (initdb's
# pg_hba.conf trusts local replication connections), with -R writing
# primary_conninfo and standby.signal, and a physical replication slot so
# the primary keeps the WAL a stopped replica still needs. The replica
# belongs to the primary's server user and gets its own socket folder; its
# port is given by `start`.
cmd_replica_init() {
	[ $# -eq 3 ] || usage
	local pdir=$1 pport=$2 dir=$3 pdata user bin data slot wal senders
	check_port "$pport"
	bin=$(bindir)
	pdata=$(data_dir "$pdir")
	[ -f "$pdata/PG_VERSION" ] || die "no cluster in $pdir"
	running_port "$pdata" >/dev/null || die "$pdir is not running"
	user=$(owner_of "$pdata")
	[ ! -f "$(data_dir "$dir")/PG_VERSION" ] || die "$dir already holds a cluster"
	psql_primary() {
		as_user "$user" env PGHOST="$pdata" PGPORT="$pport" PGUSER=postgres PGDATABASE=postgres \
			"$bin/psql" -X -A -t -v ON_ERROR_STOP=1 "$@"
	}
	# PostgreSQL's defaults stream WAL (wal_level replica, 10 senders);
	# a server set up otherwise says so here rather than in pg_basebackup.
	wal=$(psql_primary -c 'show wal_level')
	senders=$(psql_primary -c 'show max_wal_senders')
	[ "$wal" != minimal ] || die "$pdir has wal_level minimal: a replica needs replica or logical"
	[ "$senders" -gt 0 ] || die "$pdir has max_wal_senders 0: a replica needs a WAL sender"
	data=$(prepare_dir "$dir" "$user")
	slot=pgrest_$(printf '%s' "$data" | sha256sum | cut -c1-16)
	psql_primary -c "select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = '$slot' and not active" >/dev/null
	log "pg_basebackup of $pdir into $data (slot $slot)"
	local out
	if ! out=$(as_user "$user" "$bin/pg_basebackup" -h "$pdata" -p "$pport" -U postgres -D "$data" \
		-R -X stream -C -S "$slot" -c fast --no-sync 2>&1); then
		echo "$out" >&2
		die "pg_basebackup failed"
	fi
	# What was the primary's own: its log, its PgBouncer.
	as_user "$user" sh -c "rm -rf '$data/pgbouncer' '$data/log'; mkdir '$data/log'"
	as_user "$user" sh -c "cat >>'$data/postgresql.conf'" <<EOF

# --- pgrest throwaway replica of $pdata (scripts/pg.sh replica-init) ---
unix_socket_directories = '$data'
hot_standby = on
# queries on the replica are not cancelled by the vacuum of rows they read
hot_standby_feedback = on
wal_receiver_status_interval = 1s
EOF
}

[ $# -ge 1 ] || usage
sub=$1
shift
case "$sub" in
ensure) cmd_ensure "$@" ;;
ensure-postgis) cmd_ensure_postgis "$@" ;;
start) cmd_start "$@" ;;
stop) cmd_stop "$@" ;;
status) cmd_status "$@" ;;
psql) cmd_psql "$@" ;;
dsn) cmd_dsn "$@" ;;
destroy) cmd_destroy "$@" ;;
pgbouncer-ensure) cmd_pgbouncer_ensure "$@" ;;
redis-ensure) cmd_redis_ensure "$@" ;;
pgbouncer-start) cmd_pgbouncer_start "$@" ;;
pgbouncer-stop) cmd_pgbouncer_stop "$@" ;;
replica-init) cmd_replica_init "$@" ;;
*) usage ;;
esac
