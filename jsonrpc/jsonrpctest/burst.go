package jsonrpctest

import (
	"encoding/json"
	"fmt"
)

// ProgressBurst is the normal server plus one tool, "burst" {steps}, that
// writes steps notifications/progress (when the call asked for progress),
// a notifications/message saying it is done, and its answer, all in one
// write(2): the shape in which a fast server's last notifications reach a
// client together with the answer they precede, which a client must still
// handle before the answer.
const ProgressBurst Mode = "progress-burst"

// burstTools adds the burst tool in ProgressBurst mode.
func burstTools(mode Mode, tools []*tool) []*tool {
	if mode != ProgressBurst {
		return tools
	}
	return append(tools, &tool{name: "burst", description: "Reports steps progress notifications and answers, all in one write.",
		params: []param{{"steps", "integer", false, "How many progress notifications (default 3)."}}, run: runBurst})
}

func runBurst(s *server, c *call, args map[string]any) {
	steps := intArg(args, "steps", 3)
	if steps < 0 || steps > 10000 {
		s.answerCall(c, toolError(`invalid arguments for tool "burst": "steps" must be between 0 and 10000`), nil)
		return
	}
	var lines [][]byte
	add := func(v any) {
		data, _ := json.Marshal(v)
		lines = append(lines, data)
	}
	for i := 1; c.progressToken != nil && i <= int(steps); i++ {
		add(notification{JSONRPC: "2.0", Method: "notifications/progress", Params: map[string]any{
			"progressToken": c.progressToken, "progress": i, "total": steps, "message": fmt.Sprintf("step %d of %d", i, steps)}})
	}
	add(notification{JSONRPC: "2.0", Method: "notifications/message", Params: map[string]any{
		"level": "info", "logger": "burst", "data": fmt.Sprintf("burst of %d done", steps)}})
	add(response{JSONRPC: "2.0", ID: c.id, Result: textResult(fmt.Sprintf("burst of %d", steps))})
	s.out.together(lines)
}
