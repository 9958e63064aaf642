package cli

import (
	"strings"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// invalidPrefix starts the note of a server whose definition is invalid.
const invalidPrefix = "invalid configuration: "

// isolateInvalid keeps the servers with an invalid definition from ever
// starting while every other server runs: the runtime never starts a
// server that needs input, and says why in its note, so an invalid server
// is given its errors as that reason. Until the runtime honours
// config.Server.Invalid itself, this is how the faces keep one bad server
// from blocking the rest.
func isolateInvalid(cfg *config.Config) {
	for i, s := range cfg.Servers {
		if s.Invalid != nil {
			cfg.Servers[i].NeedsInput = invalidPrefix + s.Invalid.Error()
		}
	}
}

// invalidReason is the file:line:col errors of a server the snapshot
// shows as never started for an invalid definition, else "".
func invalidReason(v runtime.ServerSnapshot) (string, bool) {
	if strings.HasPrefix(v.Note, invalidPrefix) {
		return present.Line(strings.TrimPrefix(v.Note, invalidPrefix)), true
	}
	return "", false
}
