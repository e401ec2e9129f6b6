// Package artifacts keeps the full payloads of oversized tool results on disk
// and lets the model page them.
//
// A Store owns one workspace directory. Payloads go to
// <workspace>/.artifacts/mcp/ (results of MCP tools) or
// <workspace>/.artifacts/tool/ (the generic spillover used when the first
// write fails), in 0700 directories as 0600 files (on Windows with an ACL
// that grants their owner alone) named after the sanitized server and tool,
// the time and a random part. Each file is written to a
// temporary name and renamed, so a reader never sees half a file.
//
// A named gateway client has a store of its own (Store.ForClient): its
// payloads go to <workspace>/.artifacts/clients/<name>/<kind>, and its
// paging tools read only <workspace>/.artifacts/clients/<name>, refusing
// every other path as a missing file. Claim moves a result spooled to the
// shared directory into it. The workspace's store reads and sweeps
// everything, every client's directory included.
//
// ReadFile and SearchFiles are the model's paging tools (read_file and
// search_files, defined in tools.go). They are confined to the workspace
// through an os.Root: ".." components are rejected, and an absolute path or
// a symbolic link that leads outside the workspace fails; anything but a
// regular file (a FIFO, a socket, a device) is refused without being opened.
// Their output is bounded, and each search also by time, bytes read and the
// cost of its pattern (see SearchLimits and limits.go).
//
// Sweep removes files older than a maximum age, then the oldest files while
// the total size is over budget; it never removes a file being written or
// read, nor one written in the last few minutes. Run sweeps at start and
// periodically until its context ends.
package artifacts
