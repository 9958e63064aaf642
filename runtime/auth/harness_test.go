package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/auth/authtest"
)

const waitLimit = 30 * time.Second

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// harness is one test's manager with everything it said recorded: the
// secrets it reported, the URLs it showed, the errors it returned. At the
// end it asserts that no secret appears in any recorded text.
type harness struct {
	t       *testing.T
	m       *Manager
	mu      sync.Mutex
	secrets []string
	urls    []string
	texts   []string
}

func newHarness(t *testing.T, mutate func(*Options)) *harness {
	h := &harness{t: t}
	store, err := OpenStore(StoreOptions{Kind: StorageFile, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{
		Store: store,
		OnSecret: func(s string) {
			h.mu.Lock()
			h.secrets = append(h.secrets, s)
			h.mu.Unlock()
		},
		OnURL: func(_, u string) {
			h.mu.Lock()
			h.urls = append(h.urls, u)
			h.mu.Unlock()
		},
		OpenURL:      authtest.Follow,
		LoginTimeout: waitLimit,
	}
	if mutate != nil {
		mutate(&opts)
	}
	h.m = NewManager(opts)
	t.Cleanup(h.assertNoSecrets)
	return h
}

// note records text that could reach a person.
func (h *harness) note(s string) {
	h.mu.Lock()
	h.texts = append(h.texts, s)
	h.mu.Unlock()
}

func (h *harness) noteErr(err error) error {
	if err != nil {
		h.note(err.Error())
	}
	return err
}

func (h *harness) assertNoSecrets() {
	h.mu.Lock()
	defer h.mu.Unlock()
	all := strings.Join(append(append([]string{}, h.texts...), h.urls...), "\n")
	for _, s := range h.secrets {
		if strings.Contains(all, s) {
			h.t.Errorf("a secret reported to OnSecret appears in output: %q…", s[:min(6, len(s))])
		}
	}
}

func (h *harness) saw(secret string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.secrets {
		if s == secret {
			return true
		}
	}
	return false
}

func (h *harness) login(t Target) (*Status, error) {
	st, err := h.m.Login(ctxT(h.t), t)
	if st != nil {
		b, _ := json.Marshal(st)
		h.note(string(b))
	}
	return st, h.noteErr(err)
}

// session is an MCP connection over mcphttp with the auth Transport.
type session struct {
	conn *jsonrpc.Conn
}

func (h *harness) connect(tgt Target, interactive bool, base http.RoundTripper) *session {
	h.t.Helper()
	s, err := mcphttp.Dial(ctxT(h.t), mcphttp.Options{URL: tgt.URL, Headers: tgt.Headers, Transport: &Transport{Base: base, Manager: h.m, Target: tgt, Interactive: interactive}})
	if err != nil {
		h.t.Fatalf("Dial: %v", err)
	}
	c := &session{conn: jsonrpc.NewConn(s, jsonrpc.Options{})}
	h.t.Cleanup(func() { c.conn.Close() })
	return c
}

// initialize runs the MCP handshake.
func (h *harness) initialize(s *session) error {
	_, err := s.conn.Call(ctxT(h.t), "initialize", map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "auth-test", "version": "0"},
	})
	if err != nil {
		return h.noteErr(err)
	}
	return h.noteErr(s.conn.Notify(ctxT(h.t), "notifications/initialized", nil))
}

// call runs a tool and returns its first text.
func (h *harness) call(s *session, tool string) (string, error) {
	res, err := s.conn.Call(ctxT(h.t), "tools/call", map[string]any{"name": tool, "arguments": map[string]any{"text": "hi"}})
	if err != nil {
		return "", h.noteErr(err)
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Content) == 0 {
		return "", errors.New("no content in " + string(res))
	}
	return r.Content[0].Text, nil
}

// echo connects, initializes and calls echo, failing the test on error.
func (h *harness) echo(tgt Target) {
	h.t.Helper()
	s := h.connect(tgt, false, nil)
	if err := h.initialize(s); err != nil {
		h.t.Fatalf("initialize: %v", err)
	}
	if got, err := h.call(s, "echo"); err != nil || got != "hi" {
		h.t.Fatalf("echo = %q, %v", got, err)
	}
}

func target(r *authtest.Resource, o *config.OAuth) Target {
	return Target{Name: "prot", URL: r.URL, OAuth: o}
}

func preregistered(id string) *config.OAuth {
	return &config.OAuth{ClientID: id, GrantType: config.GrantAuthorizationCode}
}

// assertResourceParam checks every authorization and token request named
// the resource.
func assertResourceParam(t *testing.T, as *authtest.AuthServer, resource string) {
	t.Helper()
	for _, q := range as.AuthorizationRequests() {
		if q.Get("resource") != resource {
			t.Errorf("authorization request resource = %q, want %q", q.Get("resource"), resource)
		}
	}
	reqs := as.TokenRequests()
	if len(reqs) == 0 {
		t.Error("no token request")
	}
	for _, r := range reqs {
		if r.Resource != resource {
			t.Errorf("%s token request resource = %q, want %q", r.GrantType, r.Resource, resource)
		}
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
