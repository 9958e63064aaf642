package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"net/url"
	"slices"
	"strings"

	"mcpdeck/config"
)

// serverIdentity is what mcpdeck knows a server by across runs and
// reloads, hashed, whatever name it is configured under: for stdio the
// command, its arguments, its working directory and the names (not the
// values: a rotated token is the same server) of the variables it is given;
// for a remote server the origin of its URL (scheme, host and port), and
// with withPath its path too. The era memory keys by origin (an era is
// cached per origin); the tool decisions key by origin and path, because
// two servers behind one origin (/github, /slack) are different servers.
// Neither holds a secret: env values, a URL's user info, query and fragment
// are left out, and only the SHA-256 is ever written down.
func serverIdentity(cfg config.Server, withPath bool) string {
	var parts []string
	if cfg.Transport == config.TransportStdio {
		parts = append([]string{"stdio", cfg.Command}, cfg.Args...)
		parts = append(parts, "cwd", cfg.Cwd, "env")
		names := slices.Sorted(maps.Keys(cfg.Env)) // envFile's names are merged in
		names = slices.DeleteFunc(names, func(n string) bool { return n == GatewayParentEnv })
		parts = append(parts, names...)
	} else {
		origin := cfg.URL
		if u, err := url.Parse(cfg.URL); err == nil && u.Host != "" {
			origin = strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
			if withPath {
				origin += strings.TrimSuffix(u.EscapedPath(), "/")
			}
		}
		parts = []string{"remote", origin}
	}
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// GatewayParentEnv is the variable `mcpdeck gateway` adds to the
// environment of the stdio servers it starts, so a gateway started as a
// server of itself can tell. It is mcpdeck's mark, not part of what the
// server is: a server the gateway starts is the one the TUI and the
// command line run, with the same era memory and tool decisions.
const GatewayParentEnv = "MCPDECK_GATEWAY_PARENT"

// toolIdentity is what the tool decisions are kept by: the server's
// identity (with its URL's path) and the name it is configured under. The
// name is in it because servers that differ only in the values of their
// environment (one launcher, MODE=a and MODE=b) share an identity, and
// their tools would pass for each other's changed definitions; the values
// are not, because a server whose environment says something else now
// (a new token, or a description) is the same server, and what it lists is
// held against what was approved. A renamed server is pinned afresh.
func toolIdentity(cfg config.Server) string {
	h := sha256.Sum256([]byte(cfg.Name + "\x00" + serverIdentity(cfg, true)))
	return hex.EncodeToString(h[:])
}
