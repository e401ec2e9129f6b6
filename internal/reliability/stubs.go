//go:build linux

package main



func (s *suite) orphans() error      { return nil }
func (s *suite) leaks() error        { return nil }
func (s *suite) secretCanary() error { return nil }
