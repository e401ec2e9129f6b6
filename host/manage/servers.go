package manage

import (
	"fmt"
	"slices"

	"github.com/plughost/plughost/host/config"
	"github.com/plughost/plughost/host/config/interop"
)

// WriteOptions apply to every edit.
type WriteOptions struct {
	// IfVersion, when set, refuses the write with a *ConflictError unless
	// the file is still at this version (Tx.Version, or the version an API
	// client read): a change made from a stale view is never written.
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
	tx, err := m.begin(o.WriteOptions)
	if err != nil {
		return AddResult{}, err
	}
	names, err := tx.Servers()
	if err != nil {
		return AddResult{}, err
	}
	exists := slices.Contains(names, name)
	if exists && !o.Replace && (o.Confirm == nil || !o.Confirm(name, tx.File())) {
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

// RemoveServer deletes tools.mcp.servers[name] from the user file; a name
// the file does not have is a *NotFoundError.
func (m *Manager) RemoveServer(name string, o WriteOptions) (WriteResult, error) {
	tx, err := m.begin(o)
	if err != nil {
		return WriteResult{}, err
	}
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
	tx, err := m.begin(o.WriteOptions)
	if err != nil {
		return ImportResult{}, err
	}
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
	if len(res.Clashes) > 0 && !o.Replace {
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

// begin starts a Tx and applies o's version check.
func (m *Manager) begin(o WriteOptions) (*Tx, error) {
	tx, err := m.Begin()
	if err != nil {
		return nil, err
	}
	if o.IfVersion != "" && o.IfVersion != tx.Version() {
		return nil, &ConflictError{Path: tx.File()}
	}
	return tx, nil
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
