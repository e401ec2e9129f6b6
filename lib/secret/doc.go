// Package secret holds values that must never be shown: environment values and
// HTTP header values of server configs, tokens. A String masks itself in every
// textual form (fmt verbs, JSON, slog), so no caller can forget to; only
// Reveal returns the real value, and it is called where the value is used
// (building a transport plugin's config), never where it is displayed.
//
// One limit of fmt: it cannot call methods on unexported struct fields, so a
// String kept in an unexported field is printed raw by %v on the enclosing
// struct. Keep secrets in exported fields or mask them explicitly.
package secret
