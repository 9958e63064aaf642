package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// orderSchema is not valid JSON Schema: a misspelt type and a string
// minimum, nested in an array's items, where the validator's own message
// nests its causes eight levels deep.
const orderSchema = `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"qty":{"type":"integr","minimum":"1"}}}}}}`

// invalidSchemaServer is a go-sdk (v1.8.0) server over Streamable HTTP on
// loopback with a tool whose raw input schema is not valid JSON Schema
// (go-sdk lets a raw schema through unchecked) next to a valid one.
func invalidSchemaServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	answer := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	s.AddTool(&mcp.Tool{Name: "order", InputSchema: json.RawMessage(orderSchema)}, answer)
	s.AddTool(&mcp.Tool{Name: "fine", InputSchema: json.RawMessage(`{"type":"object"}`)}, answer)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// The violations of orderSchema, as every face lists them: one a line,
// path first.
var orderProblems = []string{
	"/properties/items/items/properties/qty/minimum: got string, want number",
	"/properties/items/items/properties/qty/type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'",
	"/properties/items/items/properties/qty/type: got string, want array",
}

// A tool whose input schema is not valid JSON Schema is marked where tools
// are listed (call refuses it as the server's schema problem, check fails
// it; tools said nothing): tools SERVER marks it and says in one line what
// is wrong, tools SERVER TOOL lists the problems, tools --json has them in
// a field. The list is the one call's error has: one line a violation,
// path first, not the validator's nested text.
func TestToolsMarkAnInvalidInputSchema(t *testing.T) {
	url := invalidSchemaServer(t)
	h := newHeadless(t, nil)

	r := h.run(t, "", "tools", "--url", url)
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "order [invalid schema]") || strings.Contains(r.stdout, "fine [invalid schema]") {
		t.Errorf("tools should mark order, and only order:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "adhoc order: its input schema is not valid JSON Schema: "+orderProblems[0]+" (and 2 more problems); calls are refused") {
		t.Errorf("tools should say in a line what is wrong with order's schema:\n%s", r.stdout)
	}

	r = h.run(t, "", "tools", "--url", url, "order")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "input schema is not valid JSON Schema") {
		t.Errorf("the detail should have a section on the schema's problems:\n%s", r.stdout)
	}
	for _, p := range orderProblems {
		// The detail wraps at 100 columns: a violation starts a line.
		if start := p[:min(len(p), 90)]; !strings.Contains(r.stdout, "\n"+start) {
			t.Errorf("the detail should list %q at the start of a line:\n%s", p, r.stdout)
		}
	}

	r = h.run(t, "", "tools", "--url", url, "--json")
	var out struct {
		Tools []struct {
			Tool             string   `json:"tool"`
			InputSchemaError []string `json:"inputSchemaError"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("tools --json: %v\n%s", err, r.stdout)
	}
	for _, tl := range out.Tools {
		want := []string(nil)
		if tl.Tool == "order" {
			want = orderProblems
		}
		if strings.Join(tl.InputSchemaError, "\n") != strings.Join(want, "\n") {
			t.Errorf("tools --json: %s's inputSchemaError is %q, want %q", tl.Tool, tl.InputSchemaError, want)
		}
	}

	r = h.run(t, "", "call", "--url", url, "order", `{"items":[{"qty":1}]}`)
	wantCode(t, r, ExitConnection)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 1+len(orderProblems) || !strings.HasSuffix(lines[0], "its arguments cannot be checked against it:") {
		t.Fatalf("call's error should be a sentence, then a line a violation:\n%s", r.stderr)
	}
	for i, p := range orderProblems {
		if !strings.HasPrefix(lines[1+i], "  "+p) {
			t.Errorf("line %d of call's error is %q, want %q", 2+i, lines[1+i], "  "+p)
		}
	}
}
