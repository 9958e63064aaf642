// Package registry reads the MCP Registry (registry.modelcontextprotocol.io,
// or a company's own registry speaking the same API) and turns a
// server.json into a configuration entry mcpdeck can run (Install).
//
// It speaks the registry's stable read API, version v0.1
// (docs/reference/api/openapi.yaml in modelcontextprotocol/registry,
// "2025-12-01"): GET /v0.1/servers with search, cursor, limit and
// version=latest, and GET /v0.1/servers/{name}/versions/{version}, where
// version may be "latest". Reads need no authentication.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"mcpdeck/internal/cause"
)

// DefaultURL is the official registry.
const DefaultURL = "https://registry.modelcontextprotocol.io"

// EnvURL names the environment variable that replaces DefaultURL.
const EnvURL = "MCPDECK_REGISTRY"

// apiPrefix is the API version read: v0.1 is the registry's stable one
// (v0 is its development version).
const apiPrefix = "/v0.1"

// maxResponse bounds a response body: a page of 100 servers is a few
// hundred kilobytes.
const maxResponse = 16 << 20

// Sentinel errors; match them with errors.Is.
var (
	// ErrNotFound: the registry has no such server (or version).
	ErrNotFound = errors.New("not in the registry")
	// ErrRegistry: the registry could not be reached or answered with an
	// error.
	ErrRegistry = errors.New("registry request failed")
)

// ServerJSON is a server's server.json as the registry serves it. Fields
// the registry adds later are ignored; every field here is optional in
// practice, whatever the schema says.
type ServerJSON struct {
	Schema      string      `json:"$schema,omitempty"`
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Transport `json:"remotes,omitempty"`
}

// Repository is where a server's source is.
type Repository struct {
	URL       string `json:"url"`
	Source    string `json:"source,omitempty"`
	ID        string `json:"id,omitempty"`
	Subfolder string `json:"subfolder,omitempty"`
}

// Package is one way to run a server locally.
type Package struct {
	RegistryType         string          `json:"registryType"`
	RegistryBaseURL      string          `json:"registryBaseUrl,omitempty"`
	Identifier           string          `json:"identifier"`
	Version              string          `json:"version,omitempty"`
	FileSHA256           string          `json:"fileSha256,omitempty"`
	RuntimeHint          string          `json:"runtimeHint,omitempty"`
	Transport            Transport       `json:"transport"`
	RuntimeArguments     []Argument      `json:"runtimeArguments,omitempty"`
	PackageArguments     []Argument      `json:"packageArguments,omitempty"`
	EnvironmentVariables []KeyValueInput `json:"environmentVariables,omitempty"`
}

// Transport is a package's transport, or a remote.
type Transport struct {
	Type    string          `json:"type"` // stdio, streamable-http or sse
	URL     string          `json:"url,omitempty"`
	Headers []KeyValueInput `json:"headers,omitempty"`
	// Variables fill the {curly_braces} of URL.
	Variables map[string]Input `json:"variables,omitempty"`
}

// Input is a value a server needs: fixed (Value), defaulted, or asked of
// the person installing it.
type Input struct {
	Description string   `json:"description,omitempty"`
	IsRequired  bool     `json:"isRequired,omitempty"`
	Format      string   `json:"format,omitempty"` // string, number, boolean, filepath
	Value       string   `json:"value,omitempty"`
	IsSecret    bool     `json:"isSecret,omitempty"`
	Default     string   `json:"default,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	Choices     []string `json:"choices,omitempty"`
	// Variables fill the {curly_braces} of Value.
	Variables map[string]Input `json:"variables,omitempty"`
}

// Argument is a command-line argument: positional, or named (--flag).
type Argument struct {
	Input
	Type       string `json:"type"` // positional or named
	Name       string `json:"name,omitempty"`
	ValueHint  string `json:"valueHint,omitempty"`
	IsRepeated bool   `json:"isRepeated,omitempty"`
}

// KeyValueInput is an environment variable or a header.
type KeyValueInput struct {
	Input
	Name string `json:"name"`
}

// Official is the official registry's metadata about one version.
type Official struct {
	Status        string    `json:"status,omitempty"` // active, deprecated, deleted
	StatusMessage string    `json:"statusMessage,omitempty"`
	PublishedAt   time.Time `json:"publishedAt,omitzero"`
	UpdatedAt     time.Time `json:"updatedAt,omitzero"`
	IsLatest      bool      `json:"isLatest,omitempty"`
}

// Entry is one server version as the API returns it.
type Entry struct {
	Server ServerJSON `json:"server"`
	Meta   struct {
		Official *Official `json:"io.modelcontextprotocol.registry/official,omitempty"`
	} `json:"_meta"`
}

// Page is one page of a listing.
type Page struct {
	Servers []Entry `json:"servers"`
	// NextCursor continues the listing; "" on the last page.
	NextCursor string `json:"nextCursor,omitempty"`
}

// Client reads one registry.
type Client struct {
	base string
	hc   *http.Client
}

// New returns a client of the registry at base (DefaultURL when empty),
// which may have a path (https://example.com/mcp-registry).
func New(base string, hc *http.Client) (*Client, error) {
	if base == "" {
		base = DefaultURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("registry URL %q: give an http:// or https:// URL such as %s", base, DefaultURL)
	}
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{base: strings.TrimRight(base, "/"), hc: hc}, nil
}

// URL is the registry's base URL.
func (c *Client) URL() string { return c.base }

// Search lists the latest version of the servers whose name or
// description contains query (every server when it is empty), one page of
// at most limit (0: the registry's default) from cursor.
func (c *Client) Search(ctx context.Context, query, cursor string, limit int) (Page, error) {
	q := url.Values{"version": {"latest"}}
	if query != "" {
		q.Set("search", query)
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var list struct {
		Servers  []Entry `json:"servers"`
		Metadata struct {
			NextCursor string `json:"nextCursor"`
		} `json:"metadata"`
	}
	if _, err := c.get(ctx, apiPrefix+"/servers?"+q.Encode(), &list); err != nil {
		return Page{}, err
	}
	return Page{Servers: list.Servers, NextCursor: list.Metadata.NextCursor}, nil
}

// Get returns one version of a server ("" or "latest" for the latest),
// and the response as received.
func (c *Client) Get(ctx context.Context, name, version string) (Entry, json.RawMessage, error) {
	if version == "" {
		version = "latest"
	}
	var e Entry
	raw, err := c.get(ctx, apiPrefix+"/servers/"+url.PathEscape(name)+"/versions/"+url.PathEscape(version), &e)
	if errors.Is(err, ErrNotFound) {
		what := fmt.Sprintf("%q", name)
		if version != "latest" {
			what = fmt.Sprintf("%q version %q", name, version)
		}
		return Entry{}, nil, fmt.Errorf("%w: %s is not in %s; search for it with \"mcpdeck registry search\"", ErrNotFound, what, c.base)
	}
	return e, raw, err
}

// get fetches path into v and returns the body.
func (c *Client) get(ctx context.Context, path string, v any) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRegistry, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: reaching %s: %v; check the address (--registry, %s) and the network", ErrRegistry, c.base, cause.Of(err), EnvURL)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading the answer of %s: %v", ErrRegistry, c.base, err)
	}
	if len(body) > maxResponse {
		return nil, fmt.Errorf("%w: %s answered more than %d bytes", ErrRegistry, c.base, maxResponse)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("%w (%s)", ErrNotFound, problem(body))
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%w: %s answered %s: %s", ErrRegistry, c.base, resp.Status, problem(body))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return nil, fmt.Errorf("%w: %s answered something that is not the registry API (%v); is %s a registry?", ErrRegistry, c.base, err, c.base)
	}
	return body, nil
}

// problem is the message of an error answer: the registry's problem
// details ({"title", "detail"}) or {"error": "..."}, else the body's start.
func problem(body []byte) string {
	var p struct {
		Title  string `json:"title"`
		Detail string `json:"detail"`
		Error  string `json:"error"`
	}
	if json.Unmarshal(body, &p) == nil {
		switch {
		case p.Detail != "":
			return p.Detail
		case p.Error != "":
			return p.Error
		case p.Title != "":
			return p.Title
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return "no details"
	}
	return s
}

// CloseIdle closes the client's idle connections, when it is done.
func (c *Client) CloseIdle() { c.hc.CloseIdleConnections() }
