package config

import (
	"errors"
	"slices"
)

// ValidationError is one configuration problem: Path is the JSON path of the
// offending key, written like tools.mcp.servers.github.command or, for keys
// that are not plain identifiers, tools.mcp.servers["my.server"].command; Msg
// says what is wrong and how to fix it. Msg never contains a secret value.
// Path is empty for problems of a whole file or variable (such as malformed
// JSON), whose Msg names the file or variable.
type ValidationError struct {
	// Path is the JSON path of the offending key ("" for a whole file).
	Path string `json:"path"`
	// Msg says what is wrong and how to fix it.
	Msg string `json:"message"`
}

// Error returns "<path>: <msg>", or Msg alone when Path is empty.
func (e *ValidationError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Problems is the result of validation. Fatal problems concern the global
// settings (or a file as a whole) and must stop start-up; a server with
// problems is disabled with them as the reason while every other server keeps
// working.
type Problems struct {
	// Fatal are the global problems.
	Fatal []*ValidationError
	// Servers maps a server name to the problems that disable it.
	Servers map[string][]*ValidationError
}

// Err joins the fatal problems into one error, or returns nil if there are
// none. errors.As finds each *ValidationError in it.
func (p Problems) Err() error { return joinProblems(p.Fatal) }

// ServerErr joins the problems of the named server into one error, or
// returns nil if it has none.
func (p Problems) ServerErr(name string) error { return joinProblems(p.Servers[name]) }

// All returns every problem: the fatal ones first, then each server's in
// order of server name.
func (p Problems) All() []*ValidationError {
	all := slices.Clone(p.Fatal)
	names := make([]string, 0, len(p.Servers))
	for name := range p.Servers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		all = append(all, p.Servers[name]...)
	}
	return all
}

// Empty reports whether there is no problem at all.
func (p Problems) Empty() bool { return len(p.Fatal) == 0 && len(p.Servers) == 0 }

func (p *Problems) fatal(path, msg string) {
	p.Fatal = append(p.Fatal, &ValidationError{Path: path, Msg: msg})
}

func (p *Problems) server(name, path, msg string) {
	p.addServer(name, &ValidationError{Path: path, Msg: msg})
}

func (p *Problems) addServer(name string, e *ValidationError) {
	if p.Servers == nil {
		p.Servers = map[string][]*ValidationError{}
	}
	p.Servers[name] = append(p.Servers[name], e)
}

func joinProblems(list []*ValidationError) error {
	if len(list) == 0 {
		return nil
	}
	errs := make([]error, len(list))
	for i, e := range list {
		errs[i] = e
	}
	return errors.Join(errs...)
}
