package auth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// callbackPath is the redirect URI's path on the loopback listener.
const callbackPath = "/callback"

// redirectListener is the loopback end of the authorization code flow: an
// HTTP server on 127.0.0.1 that takes exactly one authorization response on
// /callback and is closed after it or a timeout, so nothing stays listening.
type redirectListener struct {
	ln     net.Listener
	srv    *http.Server
	uri    string
	result chan url.Values // capacity 1; the first callback only
	once   sync.Once
	done   chan struct{} // closed when Serve returned
}

// listenRedirect binds 127.0.0.1:port (0: a free port). The loopback IP
// literal rather than "localhost" follows RFC 8252 §7.3: no resolver or
// firewall surprise, and nothing outside the machine can reach it.
func listenRedirect(port int) (*redirectListener, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("opening the redirect listener on 127.0.0.1:%d: %w: %v; free the port or change \"redirectPort\"", port, ErrAuthorization, err)
	}
	l := &redirectListener{
		ln:     ln,
		uri:    "http://" + ln.Addr().String() + callbackPath,
		result: make(chan url.Values, 1),
		done:   make(chan struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc(callbackPath, l.callback)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	go func() {
		defer close(l.done)
		_ = l.srv.Serve(ln)
	}()
	return l, nil
}

func (l *redirectListener) callback(w http.ResponseWriter, r *http.Request) {
	took := false
	l.once.Do(func() {
		took = true
		l.result <- r.URL.Query()
	})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if !took {
		w.WriteHeader(http.StatusGone)
		fmt.Fprint(w, "<!doctype html><title>mcpdeck</title><p>This login already received its answer. Close this tab.</p>")
		return
	}
	fmt.Fprint(w, "<!doctype html><title>mcpdeck</title><p>mcpdeck received the authorization response. Return to mcpdeck; you can close this tab.</p>")
}

// wait returns the query of the one authorization response, or an error
// when ctx ends or timeout passes first.
func (l *redirectListener) wait(ctx context.Context, timeout time.Duration) (url.Values, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case q := <-l.result:
		return q, nil
	case <-t.C:
		return nil, &loginTimeoutError{msg: fmt.Sprintf("waiting for the browser on %s: %v: no authorization response within %s; run the login again and finish it in the browser", l.uri, ErrAuthorization, timeout)}
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the browser on %s: %w", l.uri, ctx.Err())
	}
}

// close stops the listener and waits for its goroutine.
func (l *redirectListener) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := l.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		_ = l.srv.Close()
	}
	<-l.done
}

// loginTimeoutError is a login nobody finished in time. It matches
// context.DeadlineExceeded as well as ErrAuthorization: a timed-out login
// is a timeout to every face (the command line's exit 4).
type loginTimeoutError struct{ msg string }

func (e *loginTimeoutError) Error() string { return e.msg }
func (e *loginTimeoutError) Unwrap() []error {
	return []error{ErrAuthorization, context.DeadlineExceeded}
}
