//go:build unix

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/gateway"
)

// approvalConfig is an mcp.json with the go-sdk peer as "peer" and a
// gateway block that marks peer__echo and destructive tools for approval.
func approvalConfig(t *testing.T, mark, timeout string) string {
	t.Helper()
	path, args, _ := jsonrpctest.Command(jsonrpctest.Normal)
	env := jsonrpctest.ServerEnv(jsonrpctest.GoSDKModern)
	env["MCPDECK_CHECK_TEST_MARK"] = mark
	data, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"peer": map[string]any{"command": path, "args": args, "env": env}},
		"gateway":    map[string]any{"tools": map[string]any{"approve": []string{"peer__echo"}}, "approveDestructive": true, "approvalTimeout": timeout},
	})
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// A headless stdio gateway holds a call that needs approval; an operator
// in a second process lists it (gateway pending) and answers it over the
// control socket (gateway approve|deny). The gateway logs each decision on
// stderr, with who decided, and records it.
func TestGatewayApprovalFromASecondProcess(t *testing.T) {
	mark := "appr-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cfg := approvalConfig(t, mark, "30s")
	dir := t.TempDir()
	env := []string{"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "XDG_STATE_HOME=" + filepath.Join(dir, "state")}
	recording := filepath.Join(dir, "gateway.jsonl")
	cmd := mcpdeckCmd(t, "--config", cfg, "gateway", "--record", recording)
	cmd.Env = testEnv(t, env...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &running{stderr: lines(pipe)}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs, err := gatewayClient(make(chan string, 4)).Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	socket := stderr.waitLine(t, true, "the control socket", func(l string) bool { return strings.Contains(l, "wait for an operator on ") })
	if want := filepath.Join(dir, "run", "mcpdeck", "gateway-"+strconv.Itoa(cmd.Process.Pid)+".sock"); !strings.Contains(socket, want) {
		t.Fatalf("socket line %q, want %s", socket, want)
	}

	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	call := func(name string, args map[string]any) <-chan outcome {
		out := make(chan outcome, 1)
		go func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			out <- outcome{res, err}
		}()
		return out
	}
	waiting := func() string {
		t.Helper()
		line := stderr.waitLine(t, true, "the approval", func(l string) bool {
			return strings.Contains(l, "mcpdeck gateway: approval ") && strings.Contains(l, " calls ")
		})
		id := strings.TrimSuffix(strings.Fields(strings.TrimPrefix(line, "mcpdeck gateway: approval "))[0], ":")
		if !strings.HasPrefix(id, strconv.Itoa(cmd.Process.Pid)+"-") || !strings.Contains(line, "cli-test 1 (c1, stdio)") || !strings.Contains(line, "mcpdeck gateway approve "+id) {
			t.Fatalf("approval line %q", line)
		}
		return id
	}

	out := call("peer__echo", map[string]any{"text": "approved by hand"})
	id := waiting()
	r := runBin(t, dir, env, "", "gateway", "pending", "--json")
	wantCode(t, r, ExitOK)
	var listed struct{ Pending []gateway.Approval }
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil || len(listed.Pending) != 1 {
		t.Fatalf("pending --json: %v\n%s", err, r.stdout)
	}
	// The client is described in the words of the rest of --json:
	// camelCase keys, the era as a word.
	var shape struct {
		Pending []struct {
			Client map[string]any `json:"client"`
		} `json:"pending"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &shape); err != nil || len(shape.Pending) != 1 {
		t.Fatalf("pending --json: %v\n%s", err, r.stdout)
	}
	if c := shape.Pending[0].Client; c["name"] != "cli-test" || c["id"] == nil || c["transport"] == nil || (c["era"] != "legacy" && c["era"] != "modern") || c["Name"] != nil {
		t.Errorf("pending --json client %v", c)
	}
	var args bytes.Buffer
	_ = json.Compact(&args, listed.Pending[0].Arguments)
	if a := listed.Pending[0]; a.ID != id || a.Tool != "peer__echo" || a.Client.Name != "cli-test" || args.String() != `{"text":"approved by hand"}` ||
		!strings.Contains(a.Rule, `gateway.tools.approve[0] "peer__echo"`) {
		t.Fatalf("pending %+v", a)
	}
	r = runBin(t, dir, env, "", "gateway", "pending")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, `{"text":"approved by hand"}`) || !strings.HasPrefix(r.stdout, "ID ") {
		t.Fatalf("pending table:\n%s", r.stdout)
	}
	r = runBin(t, dir, env, "", "gateway", "approve", id)
	wantCode(t, r, ExitOK)
	if o := <-out; o.err != nil || o.res.Content[0].(*mcp.TextContent).Text != "approved by hand" {
		t.Fatalf("approved call: %v %+v", o.err, o.res)
	}
	decided := stderr.waitLine(t, true, "the decision", func(l string) bool { return strings.Contains(l, "approval "+id+": tools/call peer__echo") })
	if !strings.Contains(decided, " approved by mcpdeck gateway approve") || !strings.Contains(decided, "(pid ") || !strings.Contains(decided, "uid "+strconv.Itoa(os.Getuid())) {
		t.Fatalf("decision line %q", decided)
	}
	r = runBin(t, dir, env, "", "gateway", "approve", id)
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stderr, "no call waits for approval under this ID") {
		t.Fatalf("a second answer: %s", r.stderr)
	}

	out = call("peer__remove", map[string]any{"name": "prod"})
	id = waiting()
	r = runBin(t, dir, env, "", "gateway", "deny", id, "--reason", "not on a Friday")
	wantCode(t, r, ExitOK)
	o := <-out
	if o.err == nil || !strings.Contains(o.err.Error(), "not on a Friday") || !strings.Contains(o.err.Error(), "gateway.approveDestructive") {
		t.Fatalf("denied call: %v %+v", o.err, o.res)
	}
	stderr.waitLine(t, true, "the denial", func(l string) bool {
		return strings.Contains(l, "approval "+id+": tools/call peer__remove") && strings.Contains(l, " denied by ")
	})

	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("gateway exited %d", code)
	}
	data, err := os.ReadFile(recording)
	if err != nil || strings.Count(string(data), `"OperatorDecision"`) < 2 || !strings.Contains(string(data), "mcpdeck gateway approve") {
		t.Fatalf("the recording lacks the decisions: %v", err)
	}
	if _, err := os.Stat(strings.TrimSpace(socket[strings.Index(socket, "/"):strings.Index(socket, " (")])); !os.IsNotExist(err) {
		t.Errorf("the control socket outlived the gateway: %v", err)
	}
	r = runBin(t, dir, env, "", "gateway", "approve", id)
	wantCode(t, r, ExitConnection)
	if !strings.Contains(r.stderr, "has ended") {
		t.Errorf("approving at a gateway that ended: %s", r.stderr)
	}
	noProcessMarked(t, mark)
}

// A gateway whose block marks nothing opens no control socket; one that
// does, asked for a call nobody answers in time, refuses it naming the
// rule and the timeout.
func TestGatewayApprovalTimesOut(t *testing.T) {
	mark := "appr-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cfg := approvalConfig(t, mark, "500ms")
	dir := t.TempDir()
	cmd := mcpdeckCmd(t, "--config", cfg, "gateway")
	cmd.Env = testEnv(t, "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := gatewayClient(make(chan string, 4)).Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "x"}})
	if err == nil || !strings.Contains(err.Error(), "none came within 500ms (gateway.approvalTimeout)") || !strings.Contains(err.Error(), `gateway.tools.approve[0] "peer__echo"`) {
		t.Fatalf("want a refusal naming the rule and the timeout: %v", err)
	}
	cs.Close()

	noProcessMarked(t, mark)

	plain, _ := gatewayPeerConfig(t)
	cmd = mcpdeckCmd(t, "--config", plain, "gateway")
	cmd.Env = testEnv(t, "XDG_RUNTIME_DIR="+filepath.Join(dir, "run2"))
	if cs, err = gatewayClient(make(chan string, 4)).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil); err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if socks, _ := filepath.Glob(filepath.Join(dir, "run2", "mcpdeck", "*")); len(socks) != 0 {
		t.Errorf("a gateway without approvals opened %v", socks)
	}
	cs.Close()
}
