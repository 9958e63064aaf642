//go:build !unix && !windows

package proc

// Without process groups or jobs nothing but the server itself is
// supervised, so nothing is observed after it.

func descendants(int) []procEntry { return nil }

func (procEntry) alive() bool { return false }

func (p *Process) members() []Leftover { return nil }

func commandLine(int) string { return "" }
