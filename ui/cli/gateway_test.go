package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// gatewayPeerConfig is an mcp.json with the go-sdk peer (echo, ask, slow,
// add_tool, log) as server "peer", marked so a test finds it if it stays.
func gatewayPeerConfig(t *testing.T) (cfg, mark string) {
	mark = "gw-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	return fakeConfig(t, mark, map[string]jsonrpctest.Mode{"peer": jsonrpctest.GoSDKModern}), mark
}

func gatewayClient(elicited chan<- string) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			elicited <- req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "octocat"}}, nil
		},
	})
}

// gateway starts `mcpdeck --config mcp.json gateway ARGS...` in h's
// environment as the official Go SDK client's stdio server; its stderr is
// returned to be read once the session is closed.
func (h *headless) gateway(t *testing.T, ctx context.Context, args ...string) (*mcp.ClientSession, *bytes.Buffer) {
	t.Helper()
	cmd := mcpdeckCmd(t, append([]string{"--config", h.cfg, "gateway"}, args...)...)
	cmd.Dir, cmd.Env = h.dir, testEnv(t, h.env...)
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	cs, err := gatewayClient(make(chan string, 1)).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	return cs, stderr
}

// useGateway lists, calls and answers an elicitation through a gateway.
func useGateway(t *testing.T, cs *mcp.ClientSession, elicited <-chan string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "peer__echo" }) {
		t.Fatalf("tools/list: %v %+v", err, tools)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "through the binary"}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "through the binary" {
		t.Fatalf("echo: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__ask", Arguments: map[string]any{}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "Hello, octocat!" {
		t.Fatalf("ask: %v %+v", err, res)
	}
	select {
	case <-elicited:
	case <-ctx.Done():
		t.Fatal("the client was never asked")
	}
}

// The official Go SDK client starts `mcpdeck gateway` as its server, in
// both eras; closing the client stops the gateway and its servers.
func TestGatewayStdioBinary(t *testing.T) {
	t.Parallel()
	cfg, mark := gatewayPeerConfig(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			cmd := mcpdeckCmd(t, "--config", cfg, "gateway")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			elicited := make(chan string, 4)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := gatewayClient(elicited).Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, stderr.String())
			}
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s", got)
			}
			useGateway(t, cs, elicited)
			if err := cs.Close(); err != nil {
				t.Fatalf("close: %v\n%s", err, stderr.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("gateway exited %d\n%s", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "mcpdeck gateway: peer ready") {
				t.Errorf("stderr: %s", stderr.String())
			}
			noProcessMarked(t, mark)
		})
	}
}

// bearerRT adds a bearer token to every request.
type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// `mcpdeck gateway --http` serves clients of both eras with the token it
// prints, and stops cleanly on SIGTERM.
func TestGatewayHTTPBinary(t *testing.T) {
	t.Parallel()
	cfg, mark := gatewayPeerConfig(t)
	cmd := mcpdeckCmd(t, "--config", cfg, "gateway", "--http", "127.0.0.1:0")
	cmd.Env = testEnv(t, "MCPDECK_GATEWAY_TOKEN=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	lines := make(chan string, 64)
	var rest bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var url, token string
	deadline := time.After(30 * time.Second)
	for url == "" || token == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("gateway ended before announcing itself:\n%s", rest.String())
			}
			rest.WriteString(l + "\n")
			if u, ok := strings.CutPrefix(l, "mcpdeck gateway: serving MCP (Streamable HTTP) at "); ok {
				url = u
			}
			if _, tok, ok := strings.Cut(l, "(send Authorization: Bearer TOKEN): "); ok {
				token = tok
			}
		case <-deadline:
			t.Fatalf("no URL and token on stderr:\n%s", rest.String())
		}
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without the token: %v %v", err, resp)
	}
	resp.Body.Close()
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		elicited := make(chan string, 4)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		tr := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: &http.Client{Transport: bearerRT{token}}}
		cs, err := gatewayClient(elicited).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			cancel()
			t.Fatalf("%s: connect: %v", version, err)
		}
		useGateway(t, cs, elicited)
		cs.Close()
		cancel()
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("gateway after SIGTERM: %v", err)
	}
	noProcessMarked(t, mark)
}

// A non-loopback address needs --allow-remote, and then a token chosen by
// the user.
func TestGatewayBindRefusals(t *testing.T) {
	t.Parallel()
	cfg, _ := gatewayPeerConfig(t)
	env := []string{"MCPDECK_GATEWAY_TOKEN="}
	r := runBin(t, "", env, "", "--config", cfg, "gateway", "--http", "0.0.0.0:0")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--allow-remote") {
		t.Fatalf("non-loopback: exit %d\n%s", r.code, r.stderr)
	}
	r = runBin(t, "", env, "", "--config", cfg, "gateway", "--http", "0.0.0.0:0", "--allow-remote")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "MCPDECK_GATEWAY_TOKEN") {
		t.Fatalf("remote without a token: exit %d\n%s", r.code, r.stderr)
	}
	// A 3-character token used to be accepted for other machines.
	r = runBin(t, "", []string{"MCPDECK_GATEWAY_TOKEN=abc"}, "", "--config", cfg, "gateway", "--http", "0.0.0.0:0", "--allow-remote")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "too weak: it has 3 characters") || !strings.Contains(r.stderr, "at least 32 characters") {
		t.Fatalf("remote with a weak token: exit %d\n%s", r.code, r.stderr)
	}
}

// The TypeScript SDK v2 client script starts `mcpdeck gateway` as its
// stdio server, in both eras: list, call, progress, cancel, elicitation,
// and a list change (the peer's add_tool changes its tools).
func TestGatewayTSClientBinary(t *testing.T) {
	t.Parallel()
	cfg, mark := gatewayPeerConfig(t)
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			path, argv, env := jsonrpctest.TSClient(t, "--era", era, "--echo", "peer__echo", "--slow", "peer__slow", "--ask", "peer__ask",
				"--add", "peer__add_tool", "--stdio", mcpdeckBin(t), "--arg", "--config", "--arg", cfg, "--arg", "gateway")
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, path, argv...)
			cmd.Env = env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("client: %v\n%s\n%s", err, stdout.String(), stderr.String())
			}
			var seen []string
			sc := bufio.NewScanner(&stdout)
			for sc.Scan() {
				var e struct {
					Event, Era, Text, Step, Message string
				}
				if json.Unmarshal(sc.Bytes(), &e) != nil {
					t.Fatalf("not an event: %q", sc.Text())
				}
				if e.Event == "error" {
					t.Errorf("step %s: %s", e.Step, e.Message)
				}
				seen = append(seen, e.Event+":"+e.Era+e.Text)
			}
			for _, want := range []string{"connected:" + era, "call:hello", "progress:", "cancelled:", "elicitation:", "call:Hello, octocat!", "list_changed:", "done:"} {
				if !slices.Contains(seen, want) {
					t.Errorf("no %q among %v", want, seen)
				}
			}
			noProcessMarked(t, mark)
		})
	}
}

// --serve runs the HTTP gateway on the TUI's runtime.
func TestServeInTUI(t *testing.T) {
	t.Setenv("MCPDECK_GATEWAY_TOKEN", "tui-token-123456")
	rt := runtime.New(runtime.Options{Config: &config.Config{}})
	defer shutdownRuntime(rt)
	cmd := &cobra.Command{}
	var stderr bytes.Buffer
	cmd.SetErr(&stderr)
	gw, err := serveInTUI(cmd, rt, &config.Config{}, "127.0.0.1:0", nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	_, url, _ := strings.Cut(strings.SplitN(stderr.String(), "\n", 2)[0], " at ")
	if url != gw.url || gw.token != "tui-token-123456" {
		t.Fatalf("the TUI is told %s and %q; stderr said %s", gw.url, gw.token, url)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	req.Header.Set("Authorization", "Bearer tui-token-123456")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"serverInfo":{"name":"mcpdeck-gateway"`) || strings.Contains(stderr.String(), "tui-token-123456") {
		t.Fatalf("--serve: %d %s; stderr %q", resp.StatusCode, body, stderr.String())
	}
	gw.stop()
	if _, err := serveInTUI(cmd, rt, &config.Config{}, "10.1.2.3:0", nil, slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("--serve on a non-loopback address was accepted")
	}
}

// A configuration that lists the gateway itself (a project's .mcp.json
// read by the gateway the client started from it) does not recurse: the
// inner gateway refuses, the other servers are served.
func TestGatewayListedInItsOwnConfig(t *testing.T) {
	t.Parallel()
	mark := "gw-self-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	path, args, _ := jsonrpctest.Command(jsonrpctest.Normal)
	env := jsonrpctest.ServerEnv(jsonrpctest.GoSDKModern)
	env["MCPDECK_CHECK_TEST_MARK"] = mark
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"peer": map[string]any{"command": path, "args": args, "env": env},
		"self": map[string]any{"command": mcpdeckBin(t), "args": []string{"gateway"}, "env": map[string]string{"MCPDECK_CHECK_TEST_MARK": mark}},
	}})
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := mcpdeckCmd(t, "--config", cfg, "gateway")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := gatewayClient(make(chan string, 1)).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "peer__echo" }) ||
		slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return strings.HasPrefix(tl.Name, "self__") }) {
		t.Fatalf("tools: %v %+v", err, tools)
	}
	cs.Close()
	if !strings.Contains(stderr.String(), "self has failed") {
		t.Errorf("stderr does not say the inner gateway failed:\n%s", stderr.String())
	}
	noProcessMarked(t, mark)
}

// TestGatewayAdHocServerComesBack: a gateway's ad-hoc server (--stdio)
// that crashes is started again, as a configured one is: the gateway
// lives on, and its client sees the tools go and come back. It stayed
// stopped, the client's tool list empty for the rest of the session. Its
// stderr says so: the crash and the return each had no line.
func TestGatewayAdHocServerComesBack(t *testing.T) {
	t.Parallel()
	mark := "gw-adhoc-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	path, args, env := jsonrpctest.Command(jsonrpctest.Normal)
	cmd := mcpdeckCmd(t, "--protocol", "legacy", "gateway", "--stdio", strings.Join(append([]string{path}, args...), " "))
	cmd.Env = append(testEnv(t, env...), "MCPDECK_CHECK_TEST_MARK="+mark)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	offered := func() bool {
		tools, err := cs.ListTools(ctx, nil)
		return err == nil && slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "adhoc__echo" })
	}
	if !offered() {
		t.Fatalf("adhoc__echo is not offered\n%s", stderr.String())
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "adhoc__crash", Arguments: map[string]any{}}); err == nil {
		t.Fatal("the crash call was answered")
	}
	for back := false; !back; {
		select {
		case <-changed:
			back = offered()
		case <-ctx.Done():
			t.Fatalf("the crashed ad-hoc server never came back\n%s", stderr.String())
		}
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v\n%s", err, stderr.String())
	}
	// The operator of a headless gateway reads of the crash and the
	// return on its stderr, as of the servers' start.
	for _, want := range []string{"mcpdeck gateway: adhoc ready (", "mcpdeck gateway: adhoc has failed: connection closed: server process exited with status 3", "mcpdeck gateway: adhoc is ready again\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the gateway's stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	noProcessMarked(t, mark)
}
