// Package manage is plughost's application layer: what the CLI, the JSON
// API and the dashboard do to the configuration, with one set of rules for
// all of them.
//
//   - Loading: the layered config, or the built-in demo config when the user
//     has none anywhere (Manager.Load).
//   - Editing: a transaction over the user's file (Tx) — edits apply to a
//     candidate, which is checked with the validator plughost runs with and
//     written atomically (mode 0600, a .bak kept), never over a change made
//     by someone else meanwhile: a write that was overtaken is made again
//     on the new file, unless the other change touched the same server or
//     setting (a conflict). AddServer, UpdateServer, SetEnabled,
//     RemoveServer, Import and UpdateSettings are the edits front ends
//     offer; adding the first server also turns tools.mcp.enabled on.
//   - Applying: Reload loads the config again and applies it to a running
//     host.Host (host.Apply); WatchFile reports when the file changes.
//
// Errors a caller decides on are typed: *InvalidError (validation problems
// with JSON paths; nothing was written), *ConflictError (the file changed
// since it was read), *ExistsError, *NotFoundError and *NotEditableError.
// Secrets never appear in an error or a result: config.Server masks them
// whenever it is printed or marshalled.
package manage
