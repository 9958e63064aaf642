package runtime

import (
	"errors"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
)

// dialRemote connects to a remote server (Streamable HTTP or legacy SSE).
func (c *Controller) dialRemote(s *session, cfg config.Server) (jsonrpc.Stream, string, error) {
	return nil, "", errors.New("remote transports are not wired in yet")
}
