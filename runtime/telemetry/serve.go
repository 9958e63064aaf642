package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// MetricsServer is a running /metrics endpoint.
type MetricsServer struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{} // closed when Serve has returned
	once sync.Once
	err  error // Serve's error other than ErrServerClosed; read after done
}

// ServeMetrics listens on addr and serves the Prometheus exposition at
// /metrics until ctx ends, Close is called or the Telemetry shuts down.
// It returns once the address is bound, so a bad or busy address is
// reported at once. An address outside the loopback network (":9464",
// "0.0.0.0:9464", a host name other than localhost) exposes server and
// tool names to anyone who can reach the host; it is refused with
// ErrNotLoopback unless allowNonLoopback is set.
func (t *Telemetry) ServeMetrics(ctx context.Context, addr string, allowNonLoopback bool) (*MetricsServer, error) {
	if !t.MetricsEnabled() {
		return nil, fmt.Errorf("serving metrics on %s: %w (OTEL_SDK_DISABLED=true, or telemetry was built without Metrics)", addr, ErrMetricsOff)
	}
	if err := CheckMetricsAddr(addr, allowNonLoopback); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serving metrics: %w; choose a free address, e.g. 127.0.0.1:9464", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", t.Handler())
	ms := &MetricsServer{
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		ln:   ln,
		done: make(chan struct{}),
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		ln.Close()
		return nil, fmt.Errorf("serving metrics on %s: %w: telemetry has shut down", addr, ErrMetricsOff)
	}
	t.servers = append(t.servers, ms)
	t.mu.Unlock()
	go func() {
		defer close(ms.done)
		if err := ms.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			ms.err = err
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			ms.Close()
		case <-ms.done:
		}
	}()
	return ms, nil
}

// Addr is the address the server listens on (the port chosen for ":0").
func (s *MetricsServer) Addr() net.Addr { return s.ln.Addr() }

// URL is the full URL of /metrics.
func (s *MetricsServer) URL() string { return "http://" + s.ln.Addr().String() + "/metrics" }

// Close stops the server, waits for it and returns why it stopped on its
// own, if it did. Idempotent.
func (s *MetricsServer) Close() error {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			s.srv.Close()
		}
	})
	<-s.done
	return s.err
}

// CheckMetricsAddr refuses an address outside the loopback network unless
// allowed. Host names other than localhost are refused too: whether they
// resolve to loopback could change under us.
func CheckMetricsAddr(addr string, allowNonLoopback bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("metrics address %q: %w; write it as HOST:PORT, e.g. 127.0.0.1:9464", addr, err)
	}
	if allowNonLoopback || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	shown := host
	if shown == "" {
		shown = "every interface"
	}
	return fmt.Errorf("metrics address %q (%s): %w: anyone who can reach this host could read server and tool names; use 127.0.0.1:PORT, or allow it explicitly (--metrics-allow-remote)", addr, shown, ErrNotLoopback)
}
