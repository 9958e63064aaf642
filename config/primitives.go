package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// LogLevels are MCP's logging levels, least severe first: what "logLevel"
// accepts. config imports nothing of ours, so this copies runtime/mcp's
// one list; TestLogLevelsAreTheVocabularys holds the two together.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// logLevel reads a server's "logLevel": one of LogLevels.
func (p *parser) logLevel(v *hujson.Value, server string) string {
	s, ok := p.str(v, server, "logLevel")
	if !ok {
		return ""
	}
	if !slices.Contains(LogLevels, s) {
		p.errorf(v.StartOffset, server, "logLevel", "%q is not a log level; use one of %s", s, strings.Join(LogLevels, ", "))
		return ""
	}
	return s
}

// roots reads "roots", per server or at the top level of a file: an array
// of directories (variables and ~ expand, a relative path resolves like
// "cwd", and a file:// URI is taken as its path). ok is false when the
// field had errors.
func (p *parser) roots(v *hujson.Value, server string) ([]string, bool) {
	raw, offs, ok := p.stringList(v, server, "roots")
	if !ok {
		return nil, false
	}
	r := &rawServer{name: server}
	out := make([]string, 0, len(raw))
	for i, dir := range raw {
		field := fmt.Sprintf("roots[%d]", i)
		if u, err := url.Parse(dir); err == nil && u.Scheme == "file" {
			dir = u.Path
		}
		if strings.TrimSpace(dir) == "" {
			p.errorf(offs[i], server, field, "is empty; name a directory")
			ok = false
			continue
		}
		out = append(out, p.pathField(r, offs[i], field, dir))
	}
	if r.problems > 0 || len(r.inputs) > 0 {
		if len(r.inputs) > 0 {
			p.errorf(v.StartOffset, server, "roots", "cannot use %s: mcpdeck cannot prompt for VS Code inputs", strings.Join(r.inputs, ", "))
		}
		return nil, false
	}
	return slices.Compact(out), ok
}
