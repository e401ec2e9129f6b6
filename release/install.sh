#!/bin/sh
# Install plughost and its transport plugins from a release archive.
#
#   curl -fsSL https://github.com/plughost/plughost/releases/latest/download/install.sh | sh
#   sh install.sh --version 1.2.3 --prefix /usr/local
#
# Downloads plughost_<version>_<os>_<arch>.tar.gz and SHA256SUMS, checks the
# archive's sha256 against SHA256SUMS (and stops on a mismatch), unpacks it
# into PREFIX/lib/plughost (plughost with plugins/ beside it, where it looks
# for them) and links PREFIX/bin/plughost to it; completions and man pages
# go under PREFIX/share. Environment: PLUGHOST_VERSION, PLUGHOST_PREFIX
# (default ~/.local), PLUGHOST_BASE_URL (default the GitHub release of the
# version; any URL that serves the archive and SHA256SUMS).
set -eu

version=${PLUGHOST_VERSION:-}
prefix=${PLUGHOST_PREFIX:-$HOME/.local}
base=${PLUGHOST_BASE_URL:-}

die() { echo "install.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	--version) [ $# -ge 2 ] || die "--version needs a value"; version=$2; shift 2 ;;
	--prefix) [ $# -ge 2 ] || die "--prefix needs a value"; prefix=$2; shift 2 ;;
	--base-url) [ $# -ge 2 ] || die "--base-url needs a value"; base=$2; shift 2 ;;
	-h | --help) sed -n '2,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done

case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) die "unsupported system $(uname -s): on Windows use install.ps1" ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) die "unsupported architecture $(uname -m)" ;;
esac

fetch() { # fetch URL FILE
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL -o "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1"
	else
		die "neither curl nor wget is installed"
	fi
}

sha256() { # sha256 FILE: prints the hex digest
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		die "neither sha256sum nor shasum is installed: cannot verify the download"
	fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ -z "$base" ]; then
	if [ -z "$version" ]; then
		base=https://github.com/plughost/plughost/releases/latest/download
	else
		base=https://github.com/plughost/plughost/releases/download/v${version#v}
	fi
fi
fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS" || die "cannot download $base/SHA256SUMS"
if [ -z "$version" ]; then # the newest: read it off the checksum list
	version=$(sed -n "s/.*  plughost_\(.*\)_${os}_${arch}\.tar\.gz\$/\1/p" "$tmp/SHA256SUMS" | head -n 1)
	[ -n "$version" ] || die "no $os/$arch archive listed in $base/SHA256SUMS"
fi
version=${version#v}
name=plughost_${version}_${os}_${arch}
fetch "$base/$name.tar.gz" "$tmp/$name.tar.gz" || die "cannot download $base/$name.tar.gz"

want=$(awk -v f="$name.tar.gz" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")
[ -n "$want" ] || die "$name.tar.gz is not listed in SHA256SUMS"
got=$(sha256 "$tmp/$name.tar.gz")
[ "$got" = "$want" ] || die "checksum mismatch for $name.tar.gz: got $got, SHA256SUMS says $want"

tar -xzf "$tmp/$name.tar.gz" -C "$tmp"
src=$tmp/$name
lib=$prefix/lib/plughost
mkdir -p "$lib" "$prefix/bin"
rm -rf "$lib/plugins"
cp "$src/plughost" "$lib/plughost"
cp -R "$src/plugins" "$lib/plugins"
cp "$src/README.md" "$lib/"
ln -sf "$lib/plughost" "$prefix/bin/plughost"
mkdir -p "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
	"$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
cp "$src"/manpages/*.1 "$prefix/share/man/man1/"
cp "$src/completions/plughost.bash" "$prefix/share/bash-completion/completions/plughost"
cp "$src/completions/_plughost" "$prefix/share/zsh/site-functions/_plughost"
cp "$src/completions/plughost.fish" "$prefix/share/fish/vendor_completions.d/plughost.fish"

echo "installed plughost $version in $lib (checksum verified)"
"$prefix/bin/plughost" version
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "add $prefix/bin to your PATH to run plughost" ;;
esac
