package config

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Sentinel errors of the package; match them with errors.Is.
var (
	// ErrInvalid matches an Errors value: the configuration has problems
	// and nothing may start.
	ErrInvalid = errors.New("invalid configuration")
	// ErrTrustStore means the approval file could not be read or written.
	ErrTrustStore = errors.New("trust store unavailable")
)

// EmptyArgument is the warning's advice for an argument that is empty
// once expanded; a runtime that gives up on such a server says it too.
const EmptyArgument = "a program takes an empty argument as a file name or a value, and node reads its program from stdin (mcpdeck's pipe to the server), so the server never answers: set the variable, or remove the argument"

// Position is a place in a configuration file. Line and Column are 1-based;
// Column counts characters, not bytes. A zero Line means the whole file.
type Position struct {
	File         string
	Line, Column int
}

// String formats p as file:line:column, the form editors and terminals
// turn into links.
func (p Position) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Column == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// Diagnostic is one problem (or warning) found in a configuration: where,
// which server and field, and what to do about it.
type Diagnostic struct {
	Pos     Position
	Server  string // empty for file-level problems
	Field   string // e.g. "args[1]", "env.API_KEY"; empty when the whole server is meant
	Message string
	// Loud marks a warning about a server that likely keeps it from
	// working as meant (a misspelt field, which is not applied; an empty
	// argument): every command that uses the server shows it, not only
	// config validate.
	Loud bool
}

// String formats d as `file:line:col: server "x": field "args": message`,
// leaving out the parts that do not apply.
func (d Diagnostic) String() string {
	var b strings.Builder
	if s := d.Pos.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	if d.Server != "" {
		fmt.Fprintf(&b, "server %q: ", d.Server)
	}
	if d.Field != "" {
		fmt.Fprintf(&b, "field %q: ", d.Field)
	}
	b.WriteString(d.Message)
	return b.String()
}

// Errors is every problem found in a configuration, in file order. It is the
// error Load and Parse return when validation fails; errors.Is(err,
// ErrInvalid) matches it.
type Errors []Diagnostic

// Error lists every diagnostic, one per line.
func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, d := range e {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Is makes errors.Is(err, ErrInvalid) true for any Errors.
func (e Errors) Is(target error) bool { return target == ErrInvalid }

// sortDiagnostics orders diagnostics by file, then position, keeping the
// discovery order of files (files[i] is the i-th file read).
func sortDiagnostics(ds []Diagnostic, files []string) {
	fileRank := func(f string) int {
		if i := slices.Index(files, f); i >= 0 {
			return i
		}
		return len(files)
	}
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(fileRank(a.Pos.File), fileRank(b.Pos.File)),
			cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
		)
	})
}
