package manage

import (
	"fmt"
	"slices"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/config/interop"
)

// WriteOptions apply to every edit.
type WriteOptions struct {
	// IfVersion, when set, refuses the write with a *ConflictError unless
	// the file is still at this version (Tx.Version, or the version an API
	// client read): a change made from a stale view is never written.
	// Without it, a write overtaken by another is made again on the new
	// file, and refused only when the other changed the same server or
	// setting (see ConflictError).
	IfVersion string
}

// AddOptions say how AddServer treats a name that is taken.
type AddOptions struct {
	WriteOptions
	// Replace replaces a server of the same name (in its place).
	Replace bool
	// Confirm, without Replace, is asked whether to replace a server of the
	// same name (file is the user file); nil means no, with an
	// *ExistsError.
	Confirm func(name, file string) bool
}

// WriteResult is what an edit wrote.
type WriteResult struct {
	// File is the user file written.
	File string `json:"file"`
	// Created reports that the file did not exist before.
	Created bool `json:"created"`
	// Backup is where the previous version is kept ("" if Created).
	Backup string `json:"backup,omitempty"`
	// EnabledMCP reports that the edit added the first server(s) and so
	// also set tools.mcp.enabled to true.
	EnabledMCP bool `json:"enabled_mcp,omitempty"`
	// Warnings are problems the edit did not cause or that do not stop a
	// write (a command not on PATH …), for the user to read.
	Warnings []string `json:"warnings,omitempty"`
}

// AddResult is what AddServer did.
type AddResult struct {
	WriteResult
	// Replaced reports that a server of the same name was replaced.
	Replaced bool `json:"replaced"`
}

// AddServer writes s as tools.mcp.servers[name] of the user file, checked
// with the runtime's validator first (see Tx.Check). The first server of a
// file whose integration is off also turns tools.mcp.enabled on.
func (m *Manager) AddServer(name string, s config.Server, o AddOptions) (AddResult, error) {
	var res AddResult
	confirm := askOnce(o.Confirm)
	err := m.write(o.WriteOptions, serverKeys(name), func(tx *Tx) (err error) {
		res, err = tx.addServer(name, s, o.Replace, confirm)
		return err
	})
	if err != nil {
		return AddResult{}, err
	}
	return res, nil
}

func (tx *Tx) addServer(name string, s config.Server, replace bool, confirm func(name, file string) bool) (AddResult, error) {
	names, err := tx.Servers()
	if err != nil {
		return AddResult{}, err
	}
	exists := slices.Contains(names, name)
	if exists && !replace && (confirm == nil || !confirm(name, tx.File())) {
		return AddResult{}, &ExistsError{Name: name, File: tx.File()}
	}
	enabled, err := tx.EnableIfFirst()
	if err != nil {
		return AddResult{}, err
	}
	if err := tx.SetServer(name, s); err != nil {
		return AddResult{}, err
	}
	res, err := tx.commitChecked(name)
	if err != nil {
		return AddResult{}, err
	}
	res.EnabledMCP = enabled
	return AddResult{WriteResult: res, Replaced: exists}, nil
}

// askOnce returns confirm asking at most once (a write retried on a newer
// file does not ask the user again); nil stays nil.
func askOnce(confirm func(name, file string) bool) func(name, file string) bool {
	if confirm == nil {
		return nil
	}
	var answer *bool
	return func(name, file string) bool {
		if answer == nil {
			a := confirm(name, file)
			answer = &a
		}
		return *answer
	}
}

// RemoveServer deletes tools.mcp.servers[name] from the user file; a name
// the file does not have is a *NotFoundError.
func (m *Manager) RemoveServer(name string, o WriteOptions) (WriteResult, error) {
	var res WriteResult
	err := m.write(o, serverKeys(name), func(tx *Tx) (err error) {
		res, err = tx.removeServer(name)
		return err
	})
	if err != nil {
		return WriteResult{}, err
	}
	return res, nil
}

func (tx *Tx) removeServer(name string) (WriteResult, error) {
	names, err := tx.Servers()
	if err != nil {
		return WriteResult{}, err
	}
	found, err := tx.RemoveServer(name)
	if err != nil {
		return WriteResult{}, err
	}
	if !found {
		return WriteResult{}, &NotFoundError{Name: name, File: tx.File(), FileExists: tx.Exists(), Configured: names}
	}
	if err := tx.Commit(); err != nil {
		return WriteResult{}, err
	}
	return WriteResult{File: tx.File(), Backup: tx.BackupPath()}, nil
}

// ImportOptions say how Import treats names that are taken.
type ImportOptions struct {
	WriteOptions
	// Replace replaces servers that already exist; without it a clash is
	// an *ExistsError (naming the first) and nothing is written.
	Replace bool
}

// ImportResult is what Import wrote.
type ImportResult struct {
	WriteResult
	// Format is the format read (detected when none was given).
	Format string `json:"format"`
	// Names are the servers imported, in the other file's order.
	Names []string `json:"names"`
	// Clashes are the imported names that already existed.
	Clashes []string `json:"clashes,omitempty"`
	// Notes name every field left out or copied with a caveat.
	Notes []string `json:"notes,omitempty"`
}

// Import copies every server of another MCP client's config (data, in
// format, "" to detect it) into the user file. All of them are checked
// first; nothing is written unless all are valid. Importing into a file
// with no server turns tools.mcp.enabled on.
func (m *Manager) Import(data []byte, format string, o ImportOptions) (ImportResult, error) {
	found, err := interop.Import(data, format)
	if err != nil {
		return ImportResult{}, err
	}
	if len(found.Servers) == 0 {
		return ImportResult{}, fmt.Errorf("the %s file lists no servers", found.Format)
	}
	names := make([]string, len(found.Servers))
	for i, s := range found.Servers {
		names[i] = s.Name
	}
	var res ImportResult
	err = m.write(o.WriteOptions, serverKeys(names...), func(tx *Tx) (err error) {
		res, err = tx.importServers(found, o.Replace)
		return err
	})
	return res, err
}

func (tx *Tx) importServers(found interop.Result, replace bool) (ImportResult, error) {
	existing, err := tx.Servers()
	if err != nil {
		return ImportResult{}, err
	}
	res := ImportResult{Format: found.Format, Notes: found.Notes}
	for _, s := range found.Servers {
		res.Names = append(res.Names, s.Name)
		if slices.Contains(existing, s.Name) {
			res.Clashes = append(res.Clashes, s.Name)
		}
	}
	if len(res.Clashes) > 0 && !replace {
		return res, &ExistsError{Name: res.Clashes[0], File: tx.File()}
	}
	if res.EnabledMCP, err = tx.EnableIfFirst(); err != nil {
		return ImportResult{}, err
	}
	for _, s := range found.Servers {
		if err := tx.SetServer(s.Name, s.Server); err != nil {
			return ImportResult{}, err
		}
	}
	enabled := res.EnabledMCP
	if res.WriteResult, err = tx.commitChecked(res.Names...); err != nil {
		return ImportResult{}, err
	}
	res.EnabledMCP = enabled
	return res, nil
}

// commitChecked checks the candidate (changed names the servers the edit
// touched) and commits it.
func (tx *Tx) commitChecked(changed ...string) (WriteResult, error) {
	warnings, err := tx.Check(false, changed...)
	if err != nil {
		return WriteResult{}, err
	}
	res := WriteResult{File: tx.File(), Created: !tx.Exists(), Warnings: warnings}
	if !res.Created {
		res.Backup = tx.BackupPath()
	}
	if err := tx.Commit(); err != nil {
		return WriteResult{}, err
	}
	return res, nil
}
