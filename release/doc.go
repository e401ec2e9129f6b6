// Package release holds no Go code of plughost: its test checks the
// release build (.goreleaser.yaml) end to end — goreleaser check, a snapshot
// release, the archive's layout and checksums, the unpacked plughost run
// with a fresh HOME and no Go on PATH, and install.sh against the archives.
// Beside it: install.sh and install.ps1 (the one-line installs), extras.sh
// (completions and man pages for the archives) and wine.sh (make test-wine).
package release
