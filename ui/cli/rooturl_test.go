package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A url that names the origin's root of a Streamable HTTP server serving
// /mcp only is answered 404, and every face says where to look: the
// message suggests the url with /mcp (with /sse for --transport sse), for
// call and check alike. Before, it said only "check the url". A url with
// a path of its own gets no suggestion: the path was the user's choice.
func TestRootURLSuggestsThePath(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "at-mcp", Version: "1"}, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"call at /", []string{"call", "--url", srv.URL + "/", "t", "{}"}, "try " + srv.URL + "/mcp"},
		{"call at the bare origin", []string{"call", "--url", srv.URL, "t", "{}"}, "try " + srv.URL + "/mcp"},
		{"call over sse", []string{"call", "--url", srv.URL, "--transport", "sse", "t", "{}"}, "try " + srv.URL + "/sse"},
		{"check", []string{"check", "--url", srv.URL + "/"}, "try " + srv.URL + "/mcp"},
		{"a path of the user's", []string{"call", "--url", srv.URL + "/api", "t", "{}"}, ""},
	} {
		code, stdout, stderr := runCLI(tc.args...)
		out := stdout + stderr
		if code == ExitOK {
			t.Errorf("%s: exit 0: %s", tc.name, out)
			continue
		}
		switch {
		case tc.want == "" && strings.Contains(out, "try "):
			t.Errorf("%s: a url with a path of its own is given another: %s", tc.name, out)
		case tc.want != "" && (!strings.Contains(out, tc.want) || !strings.Contains(out, "nothing answers MCP at the root")):
			t.Errorf("%s: the message does not suggest %q: %s", tc.name, tc.want, out)
		}
	}
}
