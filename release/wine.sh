#!/bin/sh
# wine.sh: run packages' tests as windows/amd64 binaries under wine:
#
#	sh release/wine.sh ./config/... ./lib/...   # the packages named
#	sh release/wine.sh                          # every package wine can run
#	sh release/wine.sh --os-specific            # those with Windows code
#
# --os-specific (make test) takes the packages whose files differ between
# Windows and Linux (a _windows.go file, a build constraint) and those whose
# tests check that files are kept to their owner (they import
# internal/ownertest or internal/wine), found with go list, so a new
# Windows file joins the set by itself. The whole set (make test-wine) takes
# about three times as long.
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
# release/wine/prefix.sh makes both.
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
tmp=$(mktemp -d)
trap 'WINEPREFIX="$tmp/prefix" wineserver -k >/dev/null 2>&1; rm -rf "$tmp"' EXIT
excluded=$(echo "$EXCLUDE" | awk 'NF { print $1 }')
if [ $# -eq 1 ] && [ "$1" = --os-specific ]; then
	files='{{.ImportPath}} {{.GoFiles}} {{.TestGoFiles}} {{.XTestGoFiles}}'
	GOOS=windows go list -f "$files" ./... >"$tmp/windows" || exit 1
	GOOS=linux go list -f "$files" ./... >"$tmp/linux" || exit 1
	go list -f '{{.ImportPath}} {{.TestImports}} {{.XTestImports}}' ./... >"$tmp/imports" || exit 1
	# shellcheck disable=SC2046 # one package per word
	set -- $( { sort "$tmp/windows" "$tmp/linux" | uniq -u | awk '{ print $1 }'
		grep -E 'internal/(ownertest|wine)[] ]' "$tmp/imports" | awk '{ print $1 }'
	} | sort -u | grep -v -x -F "$excluded")
elif [ $# -eq 0 ]; then
	# shellcheck disable=SC2046 # one package per word
	set -- $(go list ./... | grep -v -x -F "$excluded")
fi

got=$(sh release/wine/prefix.sh "$tmp") || exit 1
case $got in
skip=*) echo "WARNING: ${got#skip=}: SKIPPING the Windows test binaries of $# package patterns"; exit 0 ;;
esac
wine=$(echo "$got" | sed -n 's/^wine=//p')
overlay=$(echo "$got" | sed -n 's/^overlay=//p')
export WINEPREFIX="$tmp/prefix" WINEDEBUG=-all

echo "wine: $("$wine" --version 2>/dev/null | head -n 1); $# package patterns"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -exec "$wine" -overlay "$overlay" -short -count=1 -timeout 5m "$@"
