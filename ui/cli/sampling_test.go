package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// --sampling on the reference server: its sampling tool exists only for
// a client that offers sampling; a canned reply (text, or a whole
// CreateMessageResult) reaches it, and decline is its user's rejection.
func TestCallSamplingEverything(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"everything": srvEverything(t)})
	text := filepath.Join(h.dir, "reply.txt")
	whole := filepath.Join(h.dir, "reply.json")
	if err := os.WriteFile(text, []byte("Paris, of course.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(whole, []byte(`{"role":"assistant","content":{"type":"text","text":"Lyon"},"model":"gpt-by-hand","stopReason":"maxTokens"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"call", "everything", "trigger-sampling-request", `{"prompt":"Capital of France?"}`}
	for _, tc := range []struct {
		name   string
		flags  []string
		code   int
		stdout []string
		stderr string
	}{
		{"text file", []string{"--sampling", text}, ExitOK, []string{"Paris, of course.", `"model": "mcpdeck-canned"`, "endTurn"},
			"answered everything's sampling request with the canned reply (--sampling " + text + ")"},
		{"json file", []string{"--sampling", whole}, ExitOK, []string{`"text": "Lyon"`, "gpt-by-hand", "maxTokens"}, "answered everything's sampling request"},
		{"decline", []string{"--sampling", "decline"}, ExitToolError, []string{"User rejected sampling request"},
			"declined everything's sampling request (--sampling decline)"},
		// Not offered: the server does not even list its sampling tool.
		{"not offered", nil, ExitUsage, nil, `a server may list some tools only to a client that offers sampling: give --sampling decline|FILE`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := h.run(t, "", append(append([]string(nil), args...), tc.flags...)...)
			wantCode(t, r, tc.code)
			for _, want := range tc.stdout {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("stdout does not contain %q:\n%s", want, r.stdout)
				}
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", tc.stderr, r.stderr)
			}
		})
	}
}

// --sampling on the go-sdk server in both eras: MRTR (2026-07-28) and a
// server→client request (legacy).
func TestCallSamplingBothEras(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"peer": srvFake(jsonrpctest.GoSDKModern)})
	reply := filepath.Join(h.dir, "reply.txt")
	if err := os.WriteFile(reply, []byte("Paris"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			r := h.run(t, "", "--protocol", era, "call", "peer", "sample", `{"prompt":"Capital of France?"}`, "--sampling", reply)
			wantCode(t, r, ExitOK)
			if r.stdout != "model said: Paris (mcpdeck-canned)\n" {
				t.Errorf("stdout %q", r.stdout)
			}
			// Declined: exit 1 in both eras (kind declined), as
			// server-everything's isError answer to the same decision.
			r = h.run(t, "", "--protocol", era, "call", "peer", "sample", `{"prompt":"x"}`, "--sampling", "decline")
			wantCode(t, r, ExitToolError)
			if !strings.Contains(r.stderr, "declined peer's sampling request") || !strings.Contains(r.stderr, "rejected") && !strings.Contains(r.stderr, "declined: mcpdeck runs headless") {
				t.Errorf("stderr:\n%s", r.stderr)
			}
		})
	}
}

// A --sampling file that cannot be a reply is refused before anything
// starts, saying why.
func TestCallSamplingBadFile(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	bad := filepath.Join(h.dir, "reply.json")
	if err := os.WriteFile(bad, []byte(`{"role":"assistant","content":{"type":"text","text":"x"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{bad, "names no model"},
		{filepath.Join(h.dir, "missing.txt"), "no such file"},
	} {
		r := h.run(t, "", "call", "demo", "echo", `{"text":"x"}`, "--sampling", tc.file)
		wantCode(t, r, ExitUsage)
		if !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "--sampling") || r.stdout != "" {
			t.Errorf("%s: stderr %q", tc.file, r.stderr)
		}
	}
}

// A gateway answers the sampling its client cannot with its own --sampling
// (decline by default) and says so once, in its own words: not also the
// advice of a headless call ("answer it in the TUI"), which a gateway's
// operator cannot follow for that request.
func TestGatewaySamplingDeclineSaidOnce(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"everything": srvEverything(t)})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, stderr := h.gateway(t, ctx)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__trigger-sampling-request", Arguments: map[string]any{"prompt": "Capital of France?"}})
	if err != nil || !res.IsError {
		t.Errorf("the declined sampling: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v\n%s", err, stderr.String())
	}
	lines := 0
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "sampling") {
			lines++
		}
	}
	if n := lines; n != 1 || !strings.Contains(stderr.String(), "sampling/createMessage declined by --sampling decline") {
		t.Errorf("the gateway said %d lines about the sampling request, want the one of its decision:\n%s", n, stderr.String())
	}
}
