// Package assets holds mcpdeck's embedded defaults: the default mcp.json
// (which runs mcpdeck's own demo server, so a fresh machine with no
// configuration still has something to look at) and the help text.
package assets

import _ "embed"

// DefaultConfig is the mcp.json used when no configuration file is found.
// ${mcpdeck} expands to the path of the running mcpdeck executable.
//
//go:embed default-mcp.json
var DefaultConfig []byte

// DefaultConfigName is the name under which DefaultConfig is reported as a
// source file.
const DefaultConfigName = "<embedded default mcp.json>"
