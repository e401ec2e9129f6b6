#!/bin/sh
# prefix.sh DIR: make a wine prefix in DIR/prefix in which Go binaries start,
# and print what to build and run them with:
#   wine=PATH     wine's loader; run it with WINEPREFIX=DIR/prefix
#   overlay=PATH  the go build -overlay to build them with (below)
# or one line:
#   skip=REASON   wine cannot run them here (not installed, or wine before 9
#                 without mingw-w64 to build the DLL it lacks)
# Exits 1 when a Go binary does not start for another reason. Used by
# release/wine.sh and release/'s Windows archive test.
#
# Go 1.24 and later call ProcessPrng from bcryptprimitives.dll at start,
# which wine before 9 lacks (Debian 12 has 8.0); then this builds
# release/wine/bcryptprimitives.c into the prefix's system32 with mingw-w64.
#
# The overlay replaces Go's internal/syscall/windows/at_windows.go with a
# copy that lets os.RemoveAll fall back from FileDispositionInformationEx
# when wine answers STATUS_NOT_IMPLEMENTED (as it does for Windows before
# 10 1607): without it every removal of a folder, t.TempDir's cleanup too,
# fails under wine 8. It lies at a fixed place, .cache/wine/ of this
# checkout, so that every build with it (the test binaries, the Windows
# archive's) shares the packages compiled with it.
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

# The RemoveAll fallback: one more status in the switch that already falls
# back for systems without FileDispositionInformationEx.
at="$(go env GOROOT)/src/internal/syscall/windows/at_windows.go"
if ! grep -q '^	case STATUS_INVALID_INFO_CLASS,' "$at"; then
	echo "$at no longer has the fallback switch this script extends for wine (Go $(go env GOVERSION)): update release/wine/prefix.sh" >&2; exit 1
fi
cache="$here/../../.cache/wine"
mkdir -p "$cache" && cache=$(cd "$cache" && pwd) || exit 1
sed 's/^	case STATUS_INVALID_INFO_CLASS,/	case STATUS_INVALID_INFO_CLASS, NTStatus(0xC0000002), \/\/ STATUS_NOT_IMPLEMENTED: wine before 9/' "$at" >"$dir/at_windows.go" || exit 1
printf '{"Replace":{"%s":"%s"}}\n' "$at" "$cache/at_windows.go" >"$dir/overlay.json"
# Replaced only when changed, and by rename: another run may be building.
for f in at_windows.go overlay.json; do
	cmp -s "$dir/$f" "$cache/$f" || mv "$dir/$f" "$cache/$f" || exit 1
done
overlay="$cache/overlay.json"

export WINEPREFIX="$dir/prefix" WINEDEBUG=-all
"$wine" wineboot -i >/dev/null 2>&1 || true
# The probe: a test binary that runs no test.
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -overlay "$overlay" -c -o "$dir/probe.exe" "$here/../../internal/wine" || exit 1
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
echo "overlay=$overlay"
