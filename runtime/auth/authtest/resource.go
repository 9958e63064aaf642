package authtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Where a Resource publishes its protected resource metadata.
const (
	MetadataHeader = "header" // resource_metadata in the 401 (served at a custom path)
	MetadataPath   = "path"   // only the path-aware well-known URL
	MetadataRoot   = "root"   // only the root well-known URL
)

// ResourceOptions shape a Resource.
type ResourceOptions struct {
	// Metadata is MetadataHeader (default), MetadataPath or MetadataRoot.
	Metadata string
	// Scopes are named in the 401 challenge's scope.
	Scopes []string
	// WriteScope, when set, is required by the "write" tool: without it the
	// server answers 403 insufficient_scope.
	WriteScope string
	// AcceptForeign skips the audience check (a server that wrongly takes
	// tokens issued for other resources).
	AcceptForeign bool
	// RedirectTo answers every MCP request with a 307 to this URL.
	RedirectTo string
	// APIKey puts the server behind an API gateway: a request to any
	// path of the server's origin (the MCP endpoint, its protected
	// resource metadata) without this X-Api-Key is refused with a bare 403
	// (no challenge) before the server sees it, as gateways in front of
	// MCP servers do.
	APIKey string
	// MetadataURL, when set, is the resource_metadata the challenge names
	// (MetadataHeader) instead of the server's own /meta/prm.json: metadata
	// served elsewhere (see ServeMetadata).
	MetadataURL string
}

// Resource is a protected MCP server: a go-sdk streamable server with
// "echo" and "write" tools behind a bearer check against an AuthServer.
type Resource struct {
	*httptest.Server
	// URL is the MCP endpoint (…/mcp).
	URL  string
	as   *AuthServer
	opts ResourceOptions

	mu   sync.Mutex
	auth []string // Authorization header values received
}

// NewResource starts a protected MCP server, closed when t ends.
func NewResource(t testing.TB, as *AuthServer, opts ResourceOptions) *Resource {
	if opts.Metadata == "" {
		opts.Metadata = MetadataHeader
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	type textIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "echoes text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "write", Description: "needs the write scope"},
		func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wrote " + in.Text}}}, nil, nil
		})
	r := &Resource{as: as, opts: opts}
	mux := http.NewServeMux()
	r.Server = httptest.NewServer(r.gateway(mux))
	t.Cleanup(func() {
		r.Close()
		// Sessions whose client never sent DELETE (it was refused
		// authorization) would otherwise outlive the test.
		for ss := range srv.Sessions() {
			ss.Close()
		}
	})
	r.URL = r.Server.URL + "/mcp"
	prm := func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"resource":              r.URL,
			"authorization_servers": []string{as.Issuer},
			"scopes_supported":      []string{"files:read", "files:write"},
		})
	}
	switch opts.Metadata {
	case MetadataHeader:
		mux.HandleFunc("GET /meta/prm.json", prm)
	case MetadataPath:
		mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", prm)
	case MetadataRoot:
		mux.HandleFunc("GET /.well-known/oauth-protected-resource", func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"resource": r.Resource(), "authorization_servers": []string{as.Issuer}})
		})
	}
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { r.serveMCP(w, req, mcpHandler) }))
	return r
}

// gateway refuses, with a bare 403, a request to any path of the origin
// that lacks the API key (ResourceOptions.APIKey).
func (r *Resource) gateway(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if r.opts.APIKey != "" && req.Header.Get("X-Api-Key") != r.opts.APIKey {
			writeJSON(w, http.StatusForbidden, map[string]string{"message": "Forbidden: missing or invalid API key"})
			return
		}
		next.ServeHTTP(w, req)
	})
}

// ServeMetadata writes the protected resource metadata of r: for a
// server that publishes it on another origin (ResourceOptions.MetadataURL).
func (r *Resource) ServeMetadata(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":              r.URL,
		"authorization_servers": []string{r.as.Issuer},
	})
}

// challenge writes a 401 or 403 with the Bearer challenge.
func (r *Resource) challenge(w http.ResponseWriter, status int, errCode string, scopes []string) {
	var params []string
	if r.opts.Metadata == MetadataHeader {
		at := r.Server.URL + "/meta/prm.json"
		if r.opts.MetadataURL != "" {
			at = r.opts.MetadataURL
		}
		params = append(params, fmt.Sprintf("resource_metadata=%q", at))
	}
	if len(scopes) > 0 {
		params = append(params, fmt.Sprintf("scope=%q", strings.Join(scopes, " ")))
	}
	if errCode != "" {
		params = append(params, fmt.Sprintf("error=%q", errCode))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	http.Error(w, http.StatusText(status), status)
}

func (r *Resource) serveMCP(w http.ResponseWriter, req *http.Request, next http.Handler) {
	h := req.Header.Get("Authorization")
	r.mu.Lock()
	r.auth = append(r.auth, h)
	r.mu.Unlock()
	if r.opts.RedirectTo != "" {
		http.Redirect(w, req, r.opts.RedirectTo, http.StatusTemporaryRedirect)
		return
	}
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		r.challenge(w, http.StatusUnauthorized, "", r.opts.Scopes)
		return
	}
	g, ok := r.as.Lookup(tok)
	if !ok || (!r.opts.AcceptForeign && g.Resource != r.Resource()) {
		r.challenge(w, http.StatusUnauthorized, "invalid_token", r.opts.Scopes)
		return
	}
	if r.opts.WriteScope != "" && req.Method == http.MethodPost && !slices.Contains(g.Scopes, r.opts.WriteScope) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" && msg.Params.Name == "write" {
			r.challenge(w, http.StatusForbidden, "insufficient_scope", []string{r.opts.WriteScope})
			return
		}
	}
	next.ServeHTTP(w, req)
}

// Resource is the resource identifier the server's metadata declares and
// its tokens must be issued for: the origin when only the root well-known
// metadata exists, else the MCP endpoint.
func (r *Resource) Resource() string {
	if r.opts.Metadata == MetadataRoot {
		return r.Server.URL
	}
	return r.URL
}

// AuthorizationHeaders returns the Authorization headers received so far.
func (r *Resource) AuthorizationHeaders() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.auth)
}
