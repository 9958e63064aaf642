package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// tsDump runs the TypeScript SDK v2 client (peers/ts-dump.mjs) against
// the gateway at url, in era, sending ops in order, and returns its
// answers as the client parsed them.
func tsDump(t *testing.T, url, era string, ops []map[string]any) []json.RawMessage {
	t.Helper()
	node, modules, peers := jsonrpctest.Node(t)
	script := filepath.Join(t.TempDir(), "ops.json")
	b, _ := json.Marshal(ops)
	if err := os.WriteFile(script, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(peers, "ts-dump.mjs"), "--url", url, "--bearer", testToken, "--era", era, "--script", script)
	cmd.Env = append(os.Environ(), jsonrpctest.EnvNodeModules+"="+modules)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ts-dump (%s): %v\n%s", era, err, stderr.String())
	}
	var out struct{ Answers []json.RawMessage }
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Answers) != len(ops) {
		t.Fatalf("ts-dump printed %q (%v)\n%s", stdout.String(), err, stderr.String())
	}
	return out.Answers
}

// A completion passes through the gateway as the server sent it:
// server-everything (TypeScript SDK v1) answers every completion with
// total and hasMore, false included, and a TypeScript SDK v2 client that
// pages on hasMore sees them, in either era.
func TestCompletionAsTheServerSentIt(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, everythingServer(t))
	g := newGateway(t, rt, Options{})
	url := serveHTTP(t, g)
	ops := []map[string]any{
		{"method": "completion/complete", "params": map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "everything__completable-prompt"},
			"argument": map[string]any{"name": "department", "value": "S"}}},
		{"method": "completion/complete", "params": map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "everything__completable-prompt"},
			"argument": map[string]any{"name": "name", "value": ""}, "context": map[string]any{"arguments": map[string]any{"department": "Sales"}}}},
		{"method": "completion/complete", "params": map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "everything__completable-prompt"},
			"argument": map[string]any{"name": "department", "value": "Nothing"}}},
	}
	want := []string{
		`{"values":["Sales","Support"],"total":2,"hasMore":false}`,
		`{"values":["David","Eve","Frank"],"total":3,"hasMore":false}`,
		`{"values":[],"total":0,"hasMore":false}`,
	}
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			for i, a := range tsDump(t, url, era, ops) {
				var got struct {
					Result struct{ Completion json.RawMessage }
					Error  any
				}
				if err := json.Unmarshal(a, &got); err != nil || got.Error != nil {
					t.Fatalf("answer %d: %s", i, a)
				}
				if !jsonEqual(got.Result.Completion, want[i]) {
					t.Errorf("completion %d reached the client as %s, the server sent %s", i, got.Result.Completion, want[i])
				}
			}
		})
	}
}

// jsonEqual reports whether raw and want hold the same JSON value.
func jsonEqual(raw json.RawMessage, want string) bool {
	var a, b any
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// A completion whose values are null (a go-sdk server's empty result)
// reaches the client with values [], the one repair the gateway makes: a
// client cannot read null where the revision has an array.
func TestCompletionNullValuesBecomeEmpty(t *testing.T) {
	t.Parallel()
	g := newGateway(t, newRuntime(t, rootsServer("r", "legacy")), Options{})
	url := serveHTTP(t, g)
	a := tsDump(t, url, "legacy", []map[string]any{{"method": "completion/complete", "params": map[string]any{
		"ref": map[string]any{"type": "ref/prompt", "name": "r__pick"}, "argument": map[string]any{"name": "what", "value": "x"}}}})[0]
	var got struct {
		Result struct{ Completion json.RawMessage }
	}
	if err := json.Unmarshal(a, &got); err != nil || !jsonEqual(got.Result.Completion, `{"values":[]}`) {
		t.Fatalf("the client got %s, want completion {\"values\":[]}", a)
	}
}
