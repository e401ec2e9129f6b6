#!/bin/sh
# wine.sh: run the pure unit-test packages (no processes, sockets or npm
# servers of their own) as Windows test binaries under Debian's wine64.
# Installs wine64 with apt when it can; without it every package SKIPS,
# loudly, and the script exits 0. Prints one PASS/FAIL line per package and
# a closing count; exits 1 when a package fails.
set -u
PKGS=${WINE_PKGS:-"./config ./config/jsonedit ./config/userfile ./host/plugindir ./lib/... ./plugins/stdio/stdiotransport ./pluginapi ./search"}
# stdiotransport: only its pure tests (the rest start processes).
RUN_stdiotransport='TestSearchPathExt|TestEnvValueFold|TestParse|TestConfig'

wine=$(command -v wine64 || command -v wine || true)
if [ -z "$wine" ] && [ -x /usr/lib/wine/wine64 ]; then wine=/usr/lib/wine/wine64; fi
if [ -z "$wine" ]; then
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wine64) >/dev/null 2>&1
	wine=$(command -v wine64 || command -v wine || true)
	[ -z "$wine" ] && [ -x /usr/lib/wine/wine64 ] && wine=/usr/lib/wine/wine64
fi
if [ -z "$wine" ]; then
	echo "WARNING: wine64 is not installed and apt could not install it: SKIPPING the Windows test binaries"
	exit 0
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export WINEPREFIX="$out/prefix" WINEDEBUG=-all
"$wine" wineboot -i >/dev/null 2>&1 || true
# Go 1.24 and later need ProcessPrng from bcryptprimitives.dll, which wine
# before 9 lacks (Debian 12 has wine 8.0): probe once before the packages.
GOOS=windows GOARCH=amd64 go test -c -o "$out/probe.exe" ./lib/ownerfile >/dev/null 2>&1 || exit 1
if ! "$wine" "$out/probe.exe" -test.run '^$' >"$out/probe.log" 2>&1; then
	if grep -q 'bcryptprimitives.dll not found' "$out/probe.log"; then
		echo "WARNING: $("$wine" --version 2>/dev/null | head -n 1) lacks bcryptprimitives.dll, which Go $(go env GOVERSION) Windows binaries need at start: SKIPPING the Windows test binaries (wine 9 or later runs them)"
		exit 0
	fi
	echo "FAIL: a Windows test binary does not start under wine:"; cat "$out/probe.log"; exit 1
fi
passed=0 failed=0
# shellcheck disable=SC2086 # PKGS is a list of patterns
for p in $(go list $PKGS); do
	name=$(basename "$p")
	exe="$out/$name.test.exe"
	if ! GOOS=windows GOARCH=amd64 go test -c -o "$exe" "$p" >"$out/build.log" 2>&1; then
		echo "FAIL $p (does not build for windows)"; cat "$out/build.log"; failed=$((failed + 1)); continue
	fi
	[ -f "$exe" ] || { echo "---- $p has no tests"; continue; }
	run=
	[ "$name" = stdiotransport ] && run=$RUN_stdiotransport
	if (cd "$(go list -f '{{.Dir}}' "$p")" && timeout 600 "$wine" "$exe" -test.short -test.count=1 ${run:+-test.run "$run"}) >"$out/$name.log" 2>&1; then
		echo "PASS $p"; passed=$((passed + 1))
	else
		echo "FAIL $p under wine:"; grep -E -- '^(--- FAIL|FAIL|panic|\s+\S+_test.go)' "$out/$name.log" | head -40
		failed=$((failed + 1))
	fi
done
echo "wine: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
