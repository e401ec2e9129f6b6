//go:build linux

package main





func (s *suite) secretCanary() error { return nil }
