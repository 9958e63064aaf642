package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// LoadOptions says where Load looks and how variables resolve. The zero
// value discovers from the working directory and the real environment.
type LoadOptions struct {
	// Files are the --config files. When any is given, only these are read
	// (scope explicit) and nothing is discovered.
	Files []string
	// ProjectDir is the project directory, also ${workspaceFolder}.
	// Default: the working directory.
	ProjectDir string
	// UserConfigDir holds the user's mcp.json. Default:
	// $XDG_CONFIG_HOME/mcpdeck, else ~/.config/mcpdeck.
	UserConfigDir string
	// Default is the embedded default configuration, used only when no file
	// is found at all; DefaultName is how it is reported as a source.
	Default     []byte
	DefaultName string
	// Vars are extra predefined variables, e.g. {"mcpdeck": "/path/to/exe"}.
	// They win over the environment. A key "input:ID" gives VS Code's
	// ${input:ID} a value (a test suite's inputs), so a server using it
	// can start outside VS Code.
	Vars map[string]string
	// LookupEnv reads the environment; tests inject their own. Default:
	// os.LookupEnv. XDG_CONFIG_HOME and HOME are read through it too.
	LookupEnv func(string) (string, bool)
	// KeepInvalid keeps a server whose own definition has errors, marked
	// with Server.Invalid, instead of failing the whole load: one bad
	// server must not stop the others. Problems outside any server (JSON
	// syntax, an unreadable file) still fail the load. See partial.go.
	KeepInvalid bool
	// Approved says whether a project file's content (its path and Hash)
	// was approved; (*TrustStore).Trusted fits. A project file that is not
	// approved is parsed for the approval prompt only: its envFile is not
	// read, diagnostics do not quote values its variables expanded to, and
	// its servers are marked Unapproved. Nil approves no project file, so
	// a caller that forgets the trust store fails safe. Files of the other
	// scopes need no approval.
	Approved func(File) bool
	// EnvInherit is what stdio servers inherit from mcpdeck's environment
	// beyond the default set when neither the server nor its file says
	// ("envInherit"). The zero value passes the default set only.
	EnvInherit EnvInherit
}

// approved reports whether f needs no approval or has it.
func (o LoadOptions) approved(f File) bool {
	return f.Scope != ScopeProject || (o.Approved != nil && o.Approved(f))
}

// withDefaults fills in the zero fields and makes the directories absolute,
// so positions and sources name real, unambiguous paths.
func (o LoadOptions) withDefaults() (LoadOptions, error) {
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.DefaultName == "" {
		o.DefaultName = "<default mcp.json>"
	}
	if o.ProjectDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, fmt.Errorf("finding the project directory: %w", err)
		}
		o.ProjectDir = wd
	}
	abs, err := filepath.Abs(o.ProjectDir)
	if err != nil {
		return o, fmt.Errorf("resolving project directory %q: %w", o.ProjectDir, err)
	}
	o.ProjectDir = abs
	if o.UserConfigDir == "" {
		if x, ok := o.LookupEnv("XDG_CONFIG_HOME"); ok && filepath.IsAbs(x) {
			o.UserConfigDir = filepath.Join(x, "mcpdeck")
		} else if h := o.home(); h != "" {
			o.UserConfigDir = filepath.Join(h, ".config", "mcpdeck")
		}
	}
	return o, nil
}

// home is the user's home directory, "" when unknown.
func (o LoadOptions) home() string {
	if h, ok := o.LookupEnv("HOME"); ok && h != "" {
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return ""
}

// predefined returns the variables every file may use, Vars on top.
func (o LoadOptions) predefined() map[string]string {
	vars := map[string]string{
		"workspaceFolder":         o.ProjectDir,
		"workspaceFolderBasename": filepath.Base(o.ProjectDir),
		"pathSeparator":           string(filepath.Separator),
		"/":                       string(filepath.Separator),
	}
	if h := o.home(); h != "" {
		vars["userHome"] = h
	}
	for k, v := range o.Vars {
		vars[k] = v
	}
	return vars
}
