// Package repocheck holds no code, only tests of the repository's own
// files that no compiler checks: every relative link and #anchor in the
// Markdown pages resolves, the pages state what is true instead of
// narrating how it came to be, the main module does not carry the
// dependencies of the nested deploy module, and `make test` runs every
// nested module's tests.
package repocheck
