// Package userfile reads and safely rewrites the user's config file. A write
// never corrupts or loses the file: the new content goes to a temporary file
// in the same directory, is fsynced and renamed over the old one (mode 0600,
// the directory created 0700 and fsynced), the previous version is kept as
// <file>.bak (0600), and a change someone else made since the file was read
// is detected and refused instead of overwritten. Writers serialize on an
// advisory lock (<file>.lock), so two plughost processes cannot interleave
// their check and rename.
package userfile
