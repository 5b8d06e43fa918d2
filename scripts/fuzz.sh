#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each, one after the
# other: go test -fuzz takes one target of one package per run. Targets are
# found by their declarations (func FuzzXxx(f *testing.F) in a _test.go
# file), so a new one is picked up without a list to keep. Prints each
# target's executions and whether it crashed; exits non-zero if any did.
# A crashing input is saved under the package's testdata/fuzz/<target>/,
# where `go test` then replays it as a regression test.
set -uo pipefail

FUZZTIME=${FUZZTIME:-1m}
GO=${GO:-go}
cd "$(dirname "$0")/.."

targets=$(grep -rEo --include='*_test.go' --exclude-dir=node_modules --exclude-dir=.git \
	'^func Fuzz[A-Za-z0-9_]*\([A-Za-z_][A-Za-z0-9_]* \*testing\.F\)' . |
	sed -E 's#^\./(.*)/[^/]*:func (Fuzz[A-Za-z0-9_]*).*#./\1:\2#; s#^\./[^/]*:func (Fuzz[A-Za-z0-9_]*).*#.:\1#' |
	sort -u)
if [ -z "$targets" ]; then
	echo "no fuzz targets found"
	exit 1
fi

crashed=0
summary=()
for t in $targets; do
	pkg=${t%%:*} fn=${t##*:}
	echo "=== $pkg $fn ($FUZZTIME)"
	out=$($GO test -run='^$' -fuzz="^${fn}\$" -fuzztime="$FUZZTIME" "$pkg" 2>&1)
	status=$?
	execs=$(printf '%s\n' "$out" | grep -Eo 'execs: [0-9]+' | tail -1 | grep -Eo '[0-9]+')
	if [ $status -eq 0 ]; then
		result="ok"
	else
		result="CRASHED"
		crashed=$((crashed + 1))
		printf '%s\n' "$out" | grep -Ev '^fuzz: elapsed' | tail -40
	fi
	line=$(printf '%-22s %-40s execs %10s  %s' "$pkg" "$fn" "${execs:-?}" "$result")
	echo "$line"
	summary+=("$line")
done

echo
echo "=== fuzz summary (FUZZTIME=$FUZZTIME)"
printf '%s\n' "${summary[@]}"
if [ $crashed -gt 0 ]; then
	echo "$crashed fuzz target(s) crashed"
	exit 1
fi
echo "no fuzz target crashed"
