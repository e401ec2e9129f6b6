#!/bin/sh
# prefix.sh DIR: make a wine prefix in DIR/prefix in which Go binaries start,
# and print what to run them with, one line:
#   wine=PATH     wine's loader; run it with WINEPREFIX=DIR/prefix
#   skip=REASON   wine cannot run them here (not installed, or wine before 9
#                 without mingw-w64 to build the DLL it lacks)
# Exits 1 when a Go binary does not start for another reason. Used by
# release/wine.sh and release/'s Windows archive test.
#
# Go 1.24 and later call ProcessPrng from bcryptprimitives.dll at start,
# which wine before 9 lacks (Debian 12 has 8.0); then this builds
# release/wine/bcryptprimitives.c into the prefix's system32 with mingw-w64.
set -u
dir=${1:?usage: prefix.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
wine=$(command -v wine64 || command -v wine || true)
[ -z "$wine" ] && [ -x /usr/lib/wine/wine64 ] && wine=/usr/lib/wine/wine64
if [ -z "$wine" ]; then
	echo "skip=wine is not installed (make wine installs Debian's wine64)"
	exit 0
fi
version=$("$wine" --version 2>/dev/null | head -n 1)
export WINEPREFIX="$dir/prefix" WINEDEBUG=-all
"$wine" wineboot -i >/dev/null 2>&1 || true
# The probe: a test binary that runs no test.
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -c -o "$dir/probe.exe" "$here/../../internal/wine" || exit 1
if ! "$wine" "$dir/probe.exe" -test.run '^$' >"$dir/probe.log" 2>&1; then
	if ! grep -q 'bcryptprimitives' "$dir/probe.log"; then
		echo "a Go binary does not start under $version:" >&2; cat "$dir/probe.log" >&2; exit 1
	fi
	if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
		echo "skip=$version lacks bcryptprimitives.dll, which Go $(go env GOVERSION) binaries need at start, and x86_64-w64-mingw32-gcc, which builds its stand-in, is not installed (make wine installs it)"
		exit 0
	fi
	x86_64-w64-mingw32-gcc -O2 -shared -nostdlib -e DllMain -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
		"$here/bcryptprimitives.c" "$here/bcryptprimitives.def" -ladvapi32 || exit 1
	if ! "$wine" "$dir/probe.exe" -test.run '^$' >"$dir/probe.log" 2>&1; then
		echo "a Go binary does not start under $version with the bcryptprimitives.dll stand-in:" >&2; cat "$dir/probe.log" >&2; exit 1
	fi
fi
echo "wine=$wine"
