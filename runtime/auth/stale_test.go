//go:build unix

package auth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/auth/authtest"
)

// TestStaleRegistration: an authorization server that forgot the client
// mcpdeck registered with it (it restarted) answers invalid_client; the
// next login drops that registration and registers again, once, wherever
// the invalid_client comes from.
func TestStaleRegistration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// forget makes the server forget its clients at the right moment.
		forget func(as *authtest.AuthServer, opts *authtest.AuthServerOptions)
		opts   authtest.AuthServerOptions
		// browsers is how many times the second login opens the browser.
		browsers int
	}{
		{"the authorization endpoint answers itself", nil, authtest.AuthServerOptions{}, 1},
		{"the authorization endpoint redirects with the error", nil, authtest.AuthServerOptions{RedirectInvalidClient: true}, 2},
		{"the token endpoint", func(as *authtest.AuthServer, opts *authtest.AuthServerOptions) {
			// The first authorization request checks the remembered
			// client; the server forgets it after the second, the
			// browser's, before the code is exchanged.
			var mu sync.Mutex
			n := 0
			opts.AfterAuthorize = func() {
				mu.Lock()
				defer mu.Unlock()
				if n++; n == 2 {
					as.ForgetClients()
				}
			}
		}, authtest.AuthServerOptions{}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.DCR = true
			var as *authtest.AuthServer
			hooked := tt.opts
			// AfterAuthorize is armed only for the second login.
			var armed func()
			hooked.AfterAuthorize = func() {
				if armed != nil {
					armed()
				}
			}
			as = authtest.NewAuthServer(t, hooked)
			rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
			h := newHarness(t, func(o *Options) { o.LoginTimeout = 10 * time.Second })
			tgt := target(rs, nil)
			first, err := h.login(tgt)
			if err != nil || first.ClientSource != clientDynamic {
				t.Fatalf("first login = %+v, %v", first, err)
			}
			if tt.forget == nil {
				as.ForgetClients() // the server restarted
			} else {
				var o authtest.AuthServerOptions
				tt.forget(as, &o)
				armed = o.AfterAuthorize
			}
			urlsBefore := len(h.urls)
			second, err := h.login(tgt)
			if err != nil {
				t.Fatalf("second login: %v", err)
			}
			if n := as.Registrations(); n != 2 || second.ClientID == first.ClientID {
				t.Fatalf("registrations = %d, client %s then %s: want a new registration", n, first.ClientID, second.ClientID)
			}
			if n := len(h.urls) - urlsBefore; n != tt.browsers {
				t.Errorf("the second login opened the browser %d times, want %d", n, tt.browsers)
			}
			h.echo(tgt)
			// A third login reuses the new registration.
			if _, err := h.login(tgt); err != nil || as.Registrations() != 2 {
				t.Fatalf("third login: %v, registrations %d", err, as.Registrations())
			}
		})
	}
	t.Run("a registration refused at once is not retried", func(t *testing.T) {
		var as *authtest.AuthServer
		as = authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true, AfterAuthorize: func() { as.ForgetClients() }})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
		h := newHarness(t, nil)
		_, err := h.login(target(rs, nil))
		if !errors.Is(err, ErrToken) || !strings.Contains(err.Error(), "invalid_client") || as.Registrations() != 1 {
			t.Fatalf("login = %v after %d registrations, want the token endpoint's invalid_client after one", err, as.Registrations())
		}
	})
}

// TestForgetClient: `auth logout --forget-client` drops the token and the
// registration, so the next login registers anew.
func TestForgetClient(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	h := newHarness(t, nil)
	tgt := target(rs, nil)
	if _, err := h.login(tgt); err != nil {
		t.Fatal(err)
	}
	issuer, err := h.m.ForgetClient(ctxT(t), tgt)
	if err != nil || issuer != as.Issuer {
		t.Fatalf("ForgetClient = %q, %v", issuer, err)
	}
	if st, _ := h.m.Status(tgt); st.TokenPresent {
		t.Fatal("the token is still stored")
	}
	if reg, _ := h.m.registration(as.Issuer); reg != nil {
		t.Fatal("the registration is still stored")
	}
	if _, err := h.login(tgt); err != nil || as.Registrations() != 2 {
		t.Fatalf("login after forgetting: %v, registrations %d", err, as.Registrations())
	}
	// Nothing stored: the authorization server is discovered, nothing fails.
	h2 := newHarness(t, nil)
	if issuer, err := h2.m.ForgetClient(ctxT(t), tgt); err != nil || issuer != "" {
		t.Fatalf("ForgetClient with nothing stored = %q, %v", issuer, err)
	}
}

// TestStaleRegistrationTSSDKServer runs the TypeScript SDK's own OAuth
// example server (simpleStreamableHttp --oauth, with its in-memory
// demo authorization server, from @modelcontextprotocol/sdk as .ci/npm
// pins it), logs in, restarts the server (which forgets every client it
// registered) and logs in again. Before, the second login sent the
// browser to an authorization endpoint that answered 400 invalid_client
// and waited until the timeout.
func TestStaleRegistrationTSSDKServer(t *testing.T) {
	t.Parallel()
	node, modules, _ := jsonrpctest.Node(t)
	script := filepath.Join(modules, "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", "simpleStreamableHttp.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("the TypeScript SDK's OAuth example server is not installed: %v", err)
	}
	mcpPort, authPort := authtest.FreePort(t), authtest.FreePort(t)
	start := func() func() {
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.CommandContext(ctx, node, script, "--oauth")
		cmd.Env = append(os.Environ(), fmt.Sprintf("MCP_PORT=%d", mcpPort), fmt.Sprintf("MCP_AUTH_PORT=%d", authPort))
		jsonrpctest.OwnGroup(cmd)
		cmd.Cancel = func() error { jsonrpctest.KillGroup(cmd.Process); return nil }
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Both listeners say so on stdout.
		ready := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(out)
			seen := 0
			for sc.Scan() {
				if strings.Contains(sc.Text(), "listening on port") {
					if seen++; seen == 2 {
						close(ready)
					}
				}
			}
		}()
		select {
		case <-ready:
		case <-time.After(waitLimit):
			cancel()
			_ = cmd.Wait()
			t.Fatal("the TypeScript SDK example server did not start")
		}
		return func() { cancel(); _ = cmd.Wait() }
	}
	stop := start()
	defer func() { stop() }()

	h := newHarness(t, func(o *Options) {
		o.LoginTimeout = 15 * time.Second
		o.HTTPClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	})
	tgt := Target{Name: "ts-oauth", URL: fmt.Sprintf("http://localhost:%d/mcp", mcpPort)}
	first, err := h.login(tgt)
	if err != nil || first.ClientSource != clientDynamic {
		t.Fatalf("first login = %+v, %v", first, err)
	}
	h.echoTS(tgt)

	stop() // the demo authorization server keeps clients in memory only
	stop = start()

	second, err := h.login(tgt)
	if err != nil {
		t.Fatalf("login after the restart: %v", err)
	}
	if second.ClientID == first.ClientID {
		t.Fatalf("the login after the restart kept client %s", first.ClientID)
	}
	h.echoTS(tgt)
}

// echoTS initializes with the TypeScript example server and lists its
// tools with the stored token.
func (h *harness) echoTS(tgt Target) {
	h.t.Helper()
	s := h.connect(tgt, false, nil)
	if err := h.initialize(s); err != nil {
		h.t.Fatalf("initialize: %v", err)
	}
	res, err := s.conn.Call(ctxT(h.t), "tools/list", map[string]any{})
	if err != nil || !strings.Contains(string(res), "greet") {
		h.t.Fatalf("tools/list = %s, %v", res, err)
	}
}
