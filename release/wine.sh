#!/bin/sh
# wine.sh: run packages' tests as windows/amd64 binaries under wine:
#
#	sh release/wine.sh ./config/... ./lib/...   # the packages named
#	sh release/wine.sh                          # every package wine can run
#
# go test builds each test binary for Windows and starts it with
# `go test -exec wine` in its package's folder, with -short, in a wine
# prefix of this run's own. Two stand-ins make Debian 12's wine 8.0 able to
# run Go binaries at all, both for the test run only:
#   - release/wine/bcryptprimitives.c, built with mingw-w64 into the prefix:
#     Go 1.24 and later call ProcessPrng from bcryptprimitives.dll at start,
#     which wine before 9 lacks;
#   - an -overlay of Go's internal/syscall/windows/at_windows.go that lets
#     os.RemoveAll fall back from FileDispositionInformationEx when wine
#     answers STATUS_NOT_IMPLEMENTED (as it does for Windows before 10
#     1607), without which every t.TempDir cleanup fails.
# Without wine, or without mingw-w64 where the DLL is needed, it prints a
# WARNING line and exits 0: the packages SKIP, loudly. make wine installs
# both with apt. It exits 1 when a package fails.
set -u
cd "$(dirname "$0")/.."

# Packages wine cannot run, each with its reason; the default list is every
# other package of the module.
EXCLUDE='
github.com/plughost/plughost/examples/logging-transport   builds test binaries with go, which the Windows side of wine lacks
github.com/plughost/plughost/plugins/internal/remote      builds test binaries with go
github.com/plughost/plughost/plugins/stdio                builds test binaries with go
github.com/plughost/plughost/internal/crossvet            runs the go command on the source tree
github.com/plughost/plughost/internal/repocheck           runs the go command on the source tree
github.com/plughost/plughost/internal/listenurl           starts sh
'
if [ $# -eq 0 ]; then
	# shellcheck disable=SC2046 # one package per word
	set -- $(go list ./... | grep -v -x -F "$(echo "$EXCLUDE" | awk 'NF { print $1 }')")
fi

wine=$(command -v wine64 || command -v wine || true)
[ -z "$wine" ] && [ -x /usr/lib/wine/wine64 ] && wine=/usr/lib/wine/wine64
if [ -z "$wine" ]; then
	echo "WARNING: wine is not installed (make wine installs Debian's wine64): SKIPPING the Windows test binaries of $# package patterns"
	exit 0
fi
version=$("$wine" --version 2>/dev/null | head -n 1)

tmp=$(mktemp -d)
export WINEPREFIX="$tmp/prefix" WINEDEBUG=-all
trap '"$(dirname "$wine")/wineserver" -k >/dev/null 2>&1 || wineserver -k >/dev/null 2>&1; rm -rf "$tmp"' EXIT
"$wine" wineboot -i >/dev/null 2>&1 || true

# Does a Go binary start? If not for want of bcryptprimitives.dll, build it.
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -c -o "$tmp/probe.exe" ./internal/wine || exit 1
if ! "$wine" "$tmp/probe.exe" -test.run '^$' >"$tmp/probe.log" 2>&1; then
	if ! grep -q 'bcryptprimitives' "$tmp/probe.log"; then
		echo "FAIL: a Windows test binary does not start under $version:"; cat "$tmp/probe.log"; exit 1
	fi
	if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
		echo "WARNING: $version lacks bcryptprimitives.dll, which Go $(go env GOVERSION) binaries need at start, and x86_64-w64-mingw32-gcc, which builds its stand-in, is not installed (make wine installs it): SKIPPING the Windows test binaries"
		exit 0
	fi
	x86_64-w64-mingw32-gcc -O2 -shared -nostdlib -e DllMain -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
		release/wine/bcryptprimitives.c release/wine/bcryptprimitives.def -ladvapi32 || exit 1
	if ! "$wine" "$tmp/probe.exe" -test.run '^$' >"$tmp/probe.log" 2>&1; then
		echo "FAIL: a Windows test binary does not start under $version with the bcryptprimitives.dll stand-in:"; cat "$tmp/probe.log"; exit 1
	fi
	version="$version, with the bcryptprimitives.dll stand-in"
fi

# The RemoveAll fallback: one more status in the switch that already falls
# back for systems without FileDispositionInformationEx.
at="$(go env GOROOT)/src/internal/syscall/windows/at_windows.go"
if ! grep -q '^	case STATUS_INVALID_INFO_CLASS,' "$at"; then
	echo "FAIL: $at no longer has the fallback switch this script extends for wine (Go $(go env GOVERSION)): update release/wine.sh"; exit 1
fi
sed 's/^	case STATUS_INVALID_INFO_CLASS,/	case STATUS_INVALID_INFO_CLASS, NTStatus(0xC0000002), \/\/ STATUS_NOT_IMPLEMENTED: wine before 9/' "$at" >"$tmp/at_windows.go"
printf '{"Replace":{"%s":"%s"}}\n' "$at" "$tmp/at_windows.go" >"$tmp/overlay.json"

echo "wine: $version; $# package patterns"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -exec "$wine" -overlay "$tmp/overlay.json" -short -count=1 -timeout 5m "$@"
