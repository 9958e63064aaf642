package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/check"
)

// The headless commands on the built binary against the reference server
// over the network: Streamable HTTP, and legacy HTTP+SSE reached by the
// automatic fallback.

func TestToolsAndCallOverStreamableHTTP(t *testing.T) {
	t.Parallel()
	url := jsonrpctest.EverythingHTTP(t, "streamableHttp") + "/mcp"
	r := runBin(t, "", nil, "", "tools", "--json", "--url", url)
	if r.code != ExitOK || !strings.Contains(r.stdout, `"tool": "echo"`) {
		t.Fatalf("tools over http: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, "", nil, "", "call", "--url", url, "echo", `{"message":"hello over http"}`)
	if r.code != ExitOK || !strings.Contains(r.stdout, "hello over http") {
		t.Fatalf("call over http: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestFallbackToLegacySSE(t *testing.T) {
	t.Parallel()
	url := jsonrpctest.EverythingHTTP(t, "sse") + "/sse"
	// No --transport: Streamable HTTP first, then legacy SSE when POST
	// initialize is refused.
	r := runBin(t, "", nil, "", "servers", "--json", "--url", url)
	if r.code != ExitOK {
		t.Fatalf("servers over sse: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var out struct {
		Servers []struct {
			State, Fallback, Transport string
			Tools                      int
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Servers) != 1 {
		t.Fatalf("servers --json: %v\n%s", err, r.stdout)
	}
	s := out.Servers[0]
	// The transport is the one in use: after the fallback, sse.
	if s.State != "ready" || s.Tools == 0 || !strings.Contains(s.Fallback, "legacy HTTP+SSE") || s.Transport != "sse" {
		t.Fatalf("server = %+v, want ready with tools, on sse, and the fallback reported", s)
	}
	// Declared explicitly, no fallback is needed or reported.
	r = runBin(t, "", nil, "", "servers", "--json", "--url", url, "--transport", "sse")
	if r.code != ExitOK || strings.Contains(r.stdout, `"fallback"`) {
		t.Fatalf("servers --transport sse: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestCheckOverStreamableHTTP(t *testing.T) {
	t.Parallel()
	url := jsonrpctest.EverythingHTTP(t, "streamableHttp") + "/mcp"
	r := runBin(t, "", nil, "", "check", "--json", "--url", url, "--header", "Authorization: Bearer not-a-real-token-42")
	if r.code != ExitOK {
		t.Fatalf("check over http: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	out := parseCheck(t, r)
	st := out.statuses(adHocName)
	for _, id := range []string{check.IDInitialize, check.IDToolsList, check.IDCall, check.IDInvalidInput, check.IDReconnect, check.IDShutdown, check.IDStableNames} {
		if !strings.HasPrefix(st[id], "PASS") {
			t.Errorf("%s = %s, want PASS over HTTP", id, st[id])
		}
	}
	if strings.Contains(r.stdout+r.stderr, "not-a-real-token-42") {
		t.Fatal("the header value appears in the output")
	}
}
