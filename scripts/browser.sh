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

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() { usage_from_header 2 5; }

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
	log "Chromium not found; installing Debian's chromium package"
	apt_install Chromium chromium
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
