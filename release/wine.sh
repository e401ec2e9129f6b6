#!/bin/sh
# wine.sh: run packages' tests as windows/amd64 binaries under wine:
#
#	sh release/wine.sh ./config/... ./lib/...   # the packages named
#	sh release/wine.sh                          # every package wine can run
#
# go test builds each test binary for Windows and starts it with
# `go test -exec wine` in its package's folder, with -short, in a wine
# prefix of this run's own. Two stand-ins, for the test run only, let Debian
# 12's wine 8.0 run Go's tests:
#   - release/wine/bcryptprimitives.c, which release/wine/prefix.sh builds
#     with mingw-w64 into the prefix: Go 1.24 and later call ProcessPrng
#     from bcryptprimitives.dll at start, which wine before 9 lacks;
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
github.com/plughost/plughost/internal/notices             runs the go command to list the linked modules
github.com/plughost/plughost/internal/reliability         drives servers with Unix signals and process groups; its files build only on Linux
'
if [ $# -eq 0 ]; then
	# shellcheck disable=SC2046 # one package per word
	set -- $(go list ./... | grep -v -x -F "$(echo "$EXCLUDE" | awk 'NF { print $1 }')")
fi

tmp=$(mktemp -d)
trap 'WINEPREFIX="$tmp/prefix" wineserver -k >/dev/null 2>&1; rm -rf "$tmp"' EXIT
got=$(sh release/wine/prefix.sh "$tmp") || exit 1
case $got in
skip=*) echo "WARNING: ${got#skip=}: SKIPPING the Windows test binaries of $# package patterns"; exit 0 ;;
esac
wine=${got#wine=}
export WINEPREFIX="$tmp/prefix" WINEDEBUG=-all

# The RemoveAll fallback: one more status in the switch that already falls
# back for systems without FileDispositionInformationEx.
at="$(go env GOROOT)/src/internal/syscall/windows/at_windows.go"
if ! grep -q '^	case STATUS_INVALID_INFO_CLASS,' "$at"; then
	echo "FAIL: $at no longer has the fallback switch this script extends for wine (Go $(go env GOVERSION)): update release/wine.sh"; exit 1
fi
sed 's/^	case STATUS_INVALID_INFO_CLASS,/	case STATUS_INVALID_INFO_CLASS, NTStatus(0xC0000002), \/\/ STATUS_NOT_IMPLEMENTED: wine before 9/' "$at" >"$tmp/at_windows.go"
printf '{"Replace":{"%s":"%s"}}\n' "$at" "$tmp/at_windows.go" >"$tmp/overlay.json"

echo "wine: $("$wine" --version 2>/dev/null | head -n 1); $# package patterns"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -exec "$wine" -overlay "$tmp/overlay.json" -short -count=1 -timeout 5m "$@"
