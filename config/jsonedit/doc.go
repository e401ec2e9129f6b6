// Package jsonedit edits a JSON document in place: it sets, deletes and reads
// values addressed by a list of object keys while every byte outside the
// edited value stays as it was — other keys and their order, the text of
// numbers (1e3, 10.50, integers beyond float64), escapes and whitespace. New
// members are indented like their siblings, so a hand-formatted file still
// looks hand-formatted after a tool changed it.
//
// Keys are plain strings, not a path syntax, so a key may hold any character
// ("my.server", "a*b", unicode). When a key occurs more than once in an
// object, the last occurrence is the one read and replaced (as encoding/json
// decodes it) and Delete removes every occurrence.
package jsonedit
