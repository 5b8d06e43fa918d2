# lib.sh: what pgrest's scripts share, sourced by each of them (never run):
# logging, running as root or as another user, installing Debian packages
# and locating PostgreSQL's binaries.
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# log and die prefix their lines with $prog, the sourcing script's name
# unless it set prog before sourcing.

prog=${prog:-$(basename "$0")}

log() { echo "$prog: $*" >&2; }
die() {
	log "$*"
	exit 1
}

# usage_from_header FIRST LAST prints lines FIRST to LAST of the script's
# header comment, without the leading "# ", and exits 2: each script's
# usage is its header, so the two cannot drift apart.
usage_from_header() {
	sed -n "$1,$2p" "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# as_root CMD... runs CMD as root: directly, or through sudo when that needs
# no password (see can_be_root).
as_root() { if is_root; then "$@"; else sudo -n "$@"; fi; }

# can_be_root succeeds when as_root can run a command.
can_be_root() { is_root || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; }

# apt_install WHAT PACKAGE... installs Debian packages with apt-get as
# root, after refreshing the package lists; WHAT names the missing thing in
# the error when they cannot be installed here.
apt_install() {
	local what=$1
	shift
	command -v apt-get >/dev/null 2>&1 || die "$what not found and no apt-get to install it: install $*"
	can_be_root || die "$what not found; as root run: apt-get update && apt-get install -y $*"
	log "running: apt-get update && apt-get install -y --no-install-recommends $*"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

# pg_major VERSION_LINE prints the major version in a line such as
# "initdb (PostgreSQL) 15.18" (15), "9.6.24" (9) or "17beta1" (17).
pg_major() { awk '{print $3}' <<<"$1" | sed 's/^\([0-9]*\).*/\1/'; }

# find_pg_bindir prints the bin folder of the newest PostgreSQL that has
# initdb, looking in PATH, in pg_config --bindir and in Debian's
# /usr/lib/postgresql; it fails when there is none.
find_pg_bindir() {
	local candidates=() d p best="" best_major=-1 major
	if p=$(command -v initdb 2>/dev/null); then
		candidates+=("$(dirname "$(readlink -f "$p")")")
	fi
	if command -v pg_config >/dev/null 2>&1 && d=$(pg_config --bindir 2>/dev/null); then
		candidates+=("$d")
	fi
	for d in /usr/lib/postgresql/*/bin; do
		candidates+=("$d")
	done
	for d in "${candidates[@]}"; do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] || continue
		major=$(pg_major "$("$d/initdb" --version 2>/dev/null)")
		[ -n "$major" ] || continue
		if [ "$major" -gt "$best_major" ]; then
			best=$d
			best_major=$major
		fi
	done
	[ -n "$best" ] || return 1
	echo "$best"
}
