package jsonrpctest

// EchoSecret reflects FAKE_SECRET in everything the server writes: its
// instructions, every tool result (a text block and structuredContent), a
// log notification and a stderr line on each call, the error of a method
// it does not know (server/discover included, so the era reason quotes
// it), and a line of non-JSON on stdout at startup. It stands for a server
// that echoes its environment, or a token it was handed, back to the
// client.
const EchoSecret Mode = "echo-secret"

// echoSecretStart writes the startup noise line.
func (s *server) echoSecretStart() {
	if s.mode == EchoSecret {
		s.out.raw("starting with token " + s.cfg.secret)
	}
}

// echoSecretInit puts the secret into the initialize result.
func (s *server) echoSecretInit(res map[string]any) {
	if s.mode == EchoSecret {
		res["instructions"] = "Use the token " + s.cfg.secret + " for every call."
	}
}

// echoSecretMessage is msg with the secret appended in this mode.
func (s *server) echoSecretMessage(msg string) string {
	if s.mode == EchoSecret {
		return msg + " (token " + s.cfg.secret + ")"
	}
	return msg
}

// echoSecretCall answers echo and fail with the secret in the result, and
// logs it, in this mode; it reports whether it answered.
func (s *server) echoSecretCall(c *call, name string, args map[string]any) bool {
	if s.mode != EchoSecret || (name != "echo" && name != "fail") {
		return false
	}
	s.logf("called with token %s", s.cfg.secret)
	s.notify("notifications/message", map[string]any{"level": "info", "logger": "echo-secret", "data": "token " + s.cfg.secret})
	text, _ := args["text"].(string)
	s.answerCall(c, map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": text + " (token " + s.cfg.secret + ")"}},
		"structuredContent": map[string]any{"token": s.cfg.secret},
		"isError":           name == "fail",
	}, nil)
	return true
}
