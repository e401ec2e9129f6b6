#!/bin/sh
# extras.sh DIR: write plughost's shell completions (DIR/completions) and man
# pages (DIR/manpages) for the release archives, from the command tree, and
# the licences and notices of what the binaries link (DIR/THIRD_PARTY_NOTICES).
set -eu
dir=${1:?usage: extras.sh DIR}
rm -rf "$dir"
mkdir -p "$dir/completions"
# Stripped: a throwaway binary, linked faster without symbols and DWARF.
go build -ldflags "-s -w" -o "$dir/plughost-docs" ./cmd/host
"$dir/plughost-docs" completion bash >"$dir/completions/plughost.bash"
"$dir/plughost-docs" completion zsh >"$dir/completions/_plughost"
"$dir/plughost-docs" completion fish >"$dir/completions/plughost.fish"
"$dir/plughost-docs" completion powershell >"$dir/completions/plughost.ps1"
"$dir/plughost-docs" man "$dir/manpages" >/dev/null
rm "$dir/plughost-docs"
go run ./internal/notices -o "$dir/THIRD_PARTY_NOTICES" ./cmd/host ./plugins/stdio ./plugins/sse ./plugins/http
