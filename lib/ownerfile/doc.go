// Package ownerfile keeps the files that hold secrets (config, tokens,
// OAuth grants, the runtime file) to their owner: mode 0600 on Unix; on
// Windows, where mode bits say nothing about who may read a file, a
// protected ACL that grants the current user alone (SYSTEM and the
// Administrators keep what Windows always gives them). Exposed is the check
// that refuses or warns about a file others can read, with the command
// that fixes it on that system.
package ownerfile
