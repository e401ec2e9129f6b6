package manage

import (
	"fmt"
	"strings"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/config/userfile"
)

// ConflictError refuses a write that would overwrite someone else's change
// (another command, an editor, the dashboard…): nothing was written, so
// nobody's change is lost. It is returned when the write was based on a
// version the file no longer has (WriteOptions.IfVersion, or a whole-file
// edit), and when a write without a version finds that what it changes —
// the same server entry, or the same setting — was changed since it read
// the file. Read again and redo the change.
type ConflictError struct {
	// File is the user file.
	File string
	// Key is the JSON path of what the write changes that was changed
	// meanwhile; "" when the whole file's version was checked.
	Key string
}

// Error implements error.
func (e *ConflictError) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("%s: %s was changed by someone else since this command read the file; nothing was written — run the command again to apply it to the new version", e.File, e.Key)
	}
	return (&userfile.ChangedError{Path: e.File}).Error()
}

// InvalidError lists the problems that stopped a write: the config would
// have been invalid, so nothing was written.
type InvalidError struct {
	// File is the user file that was left as it was.
	File string
	// Problems are the problems, each with its JSON path.
	Problems []*config.ValidationError
}

// Error implements error.
func (e *InvalidError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "nothing was written to %s: the config would be invalid:", e.File)
	for _, p := range e.Problems {
		b.WriteString("\n  " + strings.ReplaceAll(p.Error(), "\n", "\n    "))
	}
	return b.String()
}

// ExistsError refuses to add a server whose name is taken (unless the
// caller asked to replace it).
type ExistsError struct {
	// Name is the server name.
	Name string
	// File is the user file that has it.
	File string
}

// Error implements error.
func (e *ExistsError) Error() string {
	return fmt.Sprintf("server %q already exists in %s", e.Name, e.File)
}

// NotFoundError says that the user file has no server of that name.
type NotFoundError struct {
	// Name is the server name asked for.
	Name string
	// File is the user file.
	File string
	// FileExists is false when the user file does not exist yet.
	FileExists bool
	// Configured are the servers the file has, in file order.
	Configured []string
}

// Error implements error.
func (e *NotFoundError) Error() string {
	if !e.FileExists {
		return fmt.Sprintf("no server named %q: %s does not exist yet (add servers with plughost mcp add)", e.Name, e.File)
	}
	configured := "none"
	if len(e.Configured) > 0 {
		configured = strings.Join(e.Configured, ", ")
	}
	return fmt.Sprintf("no server named %q in %s (configured: %s)", e.Name, e.File, configured)
}

// NotEditableError says that the user file cannot be edited key by key (it
// is not valid JSON, or a key on the way is not an object): it must be fixed
// as text first.
type NotEditableError struct {
	// File is the user file.
	File string
	// Detail says what is wrong with it.
	Detail string
	// Invalid is true when the file is not valid JSON at all.
	Invalid bool
}

// Error implements error.
func (e *NotEditableError) Error() string {
	if e.Invalid {
		return fmt.Sprintf("cannot change %s: %s; fix it with `plughost mcp edit`, then run this command again", e.File, e.Detail)
	}
	return fmt.Sprintf("cannot change %s: %s; fix it with `plughost mcp edit`", e.File, e.Detail)
}
