package record

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// TestRecordHTTPSessionAndExportHAR records a Streamable HTTP session with
// server-everything, sending a bearer token as a configured header, and
// exports it as an HTTP Archive: one entry per exchange, the SSE events
// in the response bodies, and the token nowhere.
func TestRecordHTTPSessionAndExportHAR(t *testing.T) {
	t.Parallel()
	const token = "Bearer oauth-4ccess-t0ken-xyz"
	url := jsonrpctest.EverythingHTTP(t, "streamableHttp") + "/mcp"
	srv := config.Server{Name: "remote", Transport: config.TransportHTTP, URL: url, Headers: map[string]string{"Authorization": token},
		Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	cfg := configOf(srv)
	c := newController(t, cfg)
	r, path := startRecorder(t, c, cfg)
	ctx := ctxFor(t, 60*time.Second)
	if err := c.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	if res, err := c.Call(ctx, runtime.CallRequest{Server: "remote", Tool: "echo", Arguments: json.RawMessage(`{"message":"over http"}`)}); err != nil || res.IsError {
		t.Fatalf("echo: %+v %v", res, err)
	}
	shutdown(t, c)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("oauth-4ccess")) {
		t.Error("the bearer token reached the recording")
	}
	rec, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	har, err := HAR(rec, "", "test")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(har, []byte("oauth-4ccess")) {
		t.Error("the bearer token reached the HAR")
	}
	var doc struct {
		Log struct {
			Version string
			Entries []struct {
				Request struct {
					Method, URL string
					Headers     []struct{ Name, Value string }
					PostData    *struct{ Text string }
				}
				Response struct {
					Status  int
					Content struct{ MimeType, Text string }
				}
			}
		}
	}
	if err := json.Unmarshal(har, &doc); err != nil {
		t.Fatalf("the HAR is not JSON: %v", err)
	}
	if doc.Log.Version != "1.2" || len(doc.Log.Entries) < 3 {
		t.Fatalf("HAR version %q with %d entries", doc.Log.Version, len(doc.Log.Entries))
	}
	var initialize, echoSSE, authRedacted bool
	for _, e := range doc.Log.Entries {
		if e.Request.URL != url {
			t.Errorf("entry for %s", e.Request.URL)
		}
		if e.Request.PostData != nil && strings.Contains(e.Request.PostData.Text, `"initialize"`) && e.Response.Status == 200 {
			initialize = true
		}
		if e.Request.PostData != nil && strings.Contains(e.Request.PostData.Text, `"tools/call"`) &&
			strings.Contains(e.Response.Content.MimeType, "text/event-stream") && strings.Contains(e.Response.Content.Text, "data: ") &&
			strings.Contains(e.Response.Content.Text, "over http") {
			echoSSE = true
		}
		for _, h := range e.Request.Headers {
			if h.Name == "Authorization" && h.Value == "[redacted]" {
				authRedacted = true
			}
		}
	}
	if !initialize || !echoSSE || !authRedacted {
		t.Errorf("initialize %v, the call's SSE events %v, Authorization redacted %v:\n%s", initialize, echoSSE, authRedacted, har)
	}
}
