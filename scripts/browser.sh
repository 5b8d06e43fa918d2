#!/usr/bin/env bash
# browser.sh: the headless Chromium pgrest's browser tests drive.
#
#   browser.sh ensure   install Chromium (apt-get, as root or through sudo) unless one is found
#   browser.sh path     print the Chromium binary the tests use; exit 1 when there is none
#
# Which binary: $PGREST_CHROMIUM when set, else the first of chromium,
# chromium-browser, google-chrome-stable and google-chrome found in PATH.
# Installing takes Debian's `chromium` package.
set -euo pipefail

prog=$(basename "$0")

log() { echo "$prog: $*" >&2; }
die() {
	log "$*"
	exit 1
}

usage() {
	sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# as_root CMD... runs CMD as root: directly, or through sudo when that needs
# no password.
as_root() { if is_root; then "$@"; else sudo -n "$@"; fi; }

can_be_root() { is_root || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; }

find_browser() {
	if [ -n "${PGREST_CHROMIUM:-}" ]; then
		[ -x "$PGREST_CHROMIUM" ] || die "PGREST_CHROMIUM=$PGREST_CHROMIUM is not an executable file"
		echo "$PGREST_CHROMIUM"
		return 0
	fi
	local name
	for name in chromium chromium-browser google-chrome-stable google-chrome; do
		if command -v "$name" >/dev/null 2>&1; then
			command -v "$name"
			return 0
		fi
	done
	return 1
}

cmd_ensure() {
	local b
	if b=$(find_browser); then
		log "found $("$b" --version 2>/dev/null || echo "$b") at $b"
		return 0
	fi
	command -v apt-get >/dev/null 2>&1 ||
		die "Chromium not found and no apt-get to install it: install Chromium or Chrome, or set PGREST_CHROMIUM"
	can_be_root || die "Chromium not found; as root run: apt-get update && apt-get install -y chromium"
	log "Chromium not found; installing Debian's chromium package"
	log "running: apt-get update && apt-get install -y --no-install-recommends chromium"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium
	b=$(find_browser) || die "apt-get installed chromium but no chromium binary was found in PATH"
	log "installed $("$b" --version 2>/dev/null || echo "$b") at $b"
}

cmd_path() {
	find_browser || die "no Chromium found; run: bash scripts/browser.sh ensure"
}

[ $# -ge 1 ] || usage
case "$1" in
ensure) cmd_ensure ;;
path) cmd_path ;;
*) usage ;;
esac
