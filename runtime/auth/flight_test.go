package auth

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime/auth/authtest"
)

// browserOnHold is a browser that takes the authorization URL and follows
// it only when told to.
type browserOnHold struct {
	urls chan string
}

func newBrowserOnHold() *browserOnHold { return &browserOnHold{urls: make(chan string, 4)} }

func (b *browserOnHold) open(u string) error { b.urls <- u; return nil }

func (b *browserOnHold) next(t *testing.T) string {
	t.Helper()
	select {
	case u := <-b.urls:
		return u
	case <-time.After(waitLimit):
		t.Fatal("the login never opened the browser")
		return ""
	}
}

// TestStatusDuringLogin: while a login waits for the browser, Status
// answers at once (it used to wait for the whole login behind the
// server's mutex) and says a login is running; a second Login joins the
// first instead of opening a second browser.
func TestStatusDuringLogin(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	b := newBrowserOnHold()
	h := newHarness(t, func(o *Options) { o.OpenURL = b.open })
	changed := watchFlights(h.m)
	tgt := target(rs, preregistered("pre"))

	type result struct {
		st  *Status
		err error
	}
	logins := make(chan result, 2)
	go func() { st, err := h.m.Login(ctxT(t), tgt); logins <- result{st, err} }()
	u := b.next(t)

	statusDone := make(chan *Status, 1)
	go func() {
		st, err := h.m.Status(tgt)
		if err != nil {
			t.Error(err)
		}
		statusDone <- st
	}()
	select {
	case st := <-statusDone:
		if st.TokenPresent || !st.LoginRunning {
			t.Fatalf("status during the login = %+v, want no token and a login running", st)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Status waited for the login in progress")
	}

	go func() { st, err := h.m.Login(ctxT(t), tgt); logins <- result{st, err} }()
	// The second Login probes and discovers, then joins the flight: wait
	// for it to be waiting there before finishing the first in the browser.
	waitFor(t, changed, func() bool { return h.m.flights.waiters("obtain "+tgt.key()) == 2 })
	if err := authtest.Follow(u); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		r := <-logins
		if r.err != nil || !r.st.TokenPresent {
			t.Fatalf("Login = %+v, %v", r.st, r.err)
		}
	}
	select {
	case extra := <-b.urls:
		t.Fatalf("a second browser was opened: %s", extra)
	default:
	}
	if n := len(as.AuthorizationRequests()); n != 1 {
		t.Fatalf("authorization requests = %d, want 1", n)
	}
	if st, _ := h.m.Status(tgt); st.LoginRunning {
		t.Fatal("a login is still reported running")
	}
}

// TestConcurrentRefreshesShareOneRequest: many requests meeting one
// expiring token make one refresh request, and all get its token.
func TestConcurrentRefreshesShareOneRequest(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	var hold sync.Mutex
	var refreshes atomic.Int32
	h := newHarness(t, func(o *Options) {
		o.HTTPClient = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.URL.Path == "/token" {
				hold.Lock() // held by the test until every caller waits
				//lint:ignore SA2001 the mutex is a gate, held by the test until every caller waits
				hold.Unlock()
			}
			return http.DefaultTransport.RoundTrip(r)
		})}
	})
	changed := watchFlights(h.m)
	tgt := target(rs, preregistered("pre"))
	if _, err := h.login(tgt); err != nil {
		t.Fatal(err)
	}
	// From now on the token is within the refresh skew of its expiry.
	h.m.opts.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	before := len(as.TokenRequests())

	const n = 8
	hold.Lock()
	toks := make(chan *tokenRecord, n)
	for range n {
		go func() {
			tok, err := h.m.current(ctxT(t), tgt)
			if err != nil {
				t.Error(err)
			}
			toks <- tok
		}()
	}
	waitFor(t, changed, func() bool { return h.m.flights.waiters("refresh "+tgt.key()) == n })
	hold.Unlock()
	var first *tokenRecord
	for range n {
		tok := <-toks
		if tok == nil || (first != nil && tok != first) {
			t.Fatalf("callers got different tokens: %p %p", first, tok)
		}
		first = tok
	}
	reqs := as.TokenRequests()[before:]
	for _, r := range reqs {
		if r.GrantType == "refresh_token" {
			refreshes.Add(1)
		}
	}
	if refreshes.Load() != 1 || len(reqs) != 1 {
		t.Fatalf("token requests after the login = %+v, want one refresh", reqs)
	}
}

// TestLoginWaiterLeavesOnItsOwnContext: a caller whose context ends
// stops waiting at once; when it was the last one waiting, the login is
// abandoned and its redirect listener closed.
func TestLoginWaiterLeavesOnItsOwnContext(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	b := newBrowserOnHold()
	h := newHarness(t, func(o *Options) { o.OpenURL = b.open })
	changed := watchFlights(h.m)
	tgt := target(rs, preregistered("pre"))

	patient := make(chan error, 1)
	go func() { _, err := h.m.Login(ctxT(t), tgt); patient <- err }()
	u := b.next(t)
	ctx, cancel := context.WithCancel(context.Background())
	impatient := make(chan error, 1)
	go func() { _, err := h.m.Login(ctx, tgt); impatient <- err }()
	waitFor(t, changed, func() bool { return h.m.flights.waiters("obtain "+tgt.key()) == 2 })
	cancel()
	select {
	case err := <-impatient:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled caller got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a caller whose context ended kept waiting for the login")
	}
	// The other caller still waits, and the login still completes for it.
	if err := authtest.Follow(u); err != nil {
		t.Fatal(err)
	}
	if err := <-patient; err != nil {
		t.Fatalf("the patient caller: %v", err)
	}

	// Alone and cancelled: the login is abandoned, its listener closed.
	if err := h.m.Logout(tgt); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	alone := make(chan error, 1)
	go func() { _, err := h.m.Login(ctx2, tgt); alone <- err }()
	u2 := b.next(t)
	cancel2()
	if err := <-alone; !errors.Is(err, context.Canceled) {
		t.Fatalf("Login after cancel: %v", err)
	}
	waitFor(t, changed, func() bool { return !h.m.flights.running("obtain " + tgt.key()) })
	if err := authtest.Follow(u2); err == nil {
		t.Fatal("the abandoned login's redirect listener still answers")
	}
}

// TestLoginAfterAnAbandonedOneOnAFixedPort: a login started while an
// abandoned one still winds down waits for it, so a fixed redirect port is
// free again rather than "address already in use".
func TestLoginAfterAnAbandonedOneOnAFixedPort(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	b := newBrowserOnHold()
	h := newHarness(t, func(o *Options) { o.OpenURL = b.open })
	tgt := target(rs, &config.OAuth{ClientID: "pre", RedirectPort: authtest.FreePort(t), GrantType: config.GrantAuthorizationCode})
	for i := range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		abandoned := make(chan error, 1)
		go func() { _, err := h.m.Login(ctx, tgt); abandoned <- err }()
		b.next(t)
		cancel()
		// Its caller has left; its work may still hold the port.
		if err := <-abandoned; !errors.Is(err, context.Canceled) {
			t.Fatalf("round %d: the abandoned login: %v", i, err)
		}
		next := make(chan error, 1)
		go func() { _, err := h.m.Login(ctxT(t), tgt); next <- err }()
		var u string
		select {
		case u = <-b.urls:
		case err := <-next:
			t.Fatalf("round %d: the login after the abandoned one ended before the browser: %v", i, err)
		case <-time.After(waitLimit):
			t.Fatalf("round %d: the login after the abandoned one never opened the browser", i)
		}
		if err := authtest.Follow(u); err != nil {
			t.Fatalf("round %d: following the second login: %v", i, err)
		}
		if err := <-next; err != nil {
			t.Fatalf("round %d: the login after the abandoned one: %v", i, err)
		}
		if err := h.m.Logout(tgt); err != nil {
			t.Fatal(err)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// watchFlights makes m report every change of its flights; waitFor then
// re-checks its condition at each one, with a deadline.
func watchFlights(m *Manager) chan struct{} {
	ch := make(chan struct{}, 1)
	m.flights.changed = func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	return ch
}

func waitFor(t *testing.T, changed chan struct{}, cond func() bool) {
	t.Helper()
	deadline := time.After(waitLimit)
	for !cond() {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("condition not reached before the deadline")
		}
	}
}
