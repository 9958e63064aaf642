package alert

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mcpdeck/config"
)

// hook is a webhook receiver on loopback: it decodes every POST and hands
// it to the test, answering with status (200 unless set).
type hook struct {
	srv    *httptest.Server
	got    chan Message
	status atomic.Int32
	mu     sync.Mutex
	header http.Header
}

func newHook(t *testing.T) *hook {
	h := &hook{got: make(chan Message, 64)}
	h.status.Store(http.StatusOK)
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.header = r.Header.Clone()
		h.mu.Unlock()
		if st := int(h.status.Load()); st != http.StatusOK {
			http.Error(w, "receiver is unwell", st)
			return
		}
		var m Message
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &m) != nil {
			http.Error(w, "want a JSON POST", http.StatusBadRequest)
			return
		}
		h.got <- m
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) next(t *testing.T) Message {
	t.Helper()
	select {
	case m := <-h.got:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no alert reached the webhook in 10s")
		return Message{}
	}
}

// servers is what the Runner observes, changed by the test.
type servers struct {
	mu   sync.Mutex
	list []Server
}

func (s *servers) set(l ...Server) {
	s.mu.Lock()
	s.list = l
	s.mu.Unlock()
}

func (s *servers) get() []Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list
}

// A failing server's alert reaches a real HTTP receiver as Alertmanager's
// payload, with the configured headers; a receiver that fails gets it
// again at the next evaluation; the resolution follows when the server
// recovers.
func TestRunnerDeliversFiringAndResolved(t *testing.T) {
	h := newHook(t)
	srv := &servers{}
	srv.set(Server{Name: "db", State: "failed", Reason: "exited"})
	var changes []string
	var cmu sync.Mutex
	failed := make(chan struct{}, 64)
	r := Start(t.Context(), Options{
		Settings: Settings{Rules: []config.AlertRule{{Name: "MCPServerFailed", Condition: config.AlertFailed}},
			Labels: map[string]string{"instance": "host1"}},
		Interval: 20 * time.Millisecond,
		Servers:  srv.get,
		Webhook:  &Webhook{URL: h.srv.URL + "/hook?token=s3cret", Headers: map[string]string{"Authorization": "Bearer tok"}, UserAgent: "mcpdeck/test", Timeout: 5 * time.Second},
		OnChange: func(a Alert) {
			cmu.Lock()
			changes = append(changes, a.Status)
			cmu.Unlock()
		},
		OnDelivery: func(_ Alert, err error) {
			if err != nil {
				failed <- struct{}{}
			}
		},
	})
	defer r.Stop()

	m := h.next(t)
	if m.Version != "4" || m.Status != StatusFiring || m.Receiver != "mcpdeck" || len(m.Alerts) != 1 || m.TruncatedAlerts != 0 {
		t.Fatalf("message %+v", m)
	}
	a := m.Alerts[0]
	if a.Labels["alertname"] != "MCPServerFailed" || a.Labels[LabelServer] != "db" || a.Labels["instance"] != "host1" ||
		a.Status != StatusFiring || a.StartsAt.IsZero() || !a.EndsAt.IsZero() || a.Fingerprint == "" {
		t.Errorf("alert %+v", a)
	}
	if m.GroupKey != `{}:{alertname="MCPServerFailed", instance="host1", mcpdeck_server_name="db", severity="critical"}` {
		t.Errorf("groupKey %s", m.GroupKey)
	}
	h.mu.Lock()
	if h.header.Get("Authorization") != "Bearer tok" || h.header.Get("User-Agent") != "mcpdeck/test" {
		t.Errorf("headers %v", h.header)
	}
	h.mu.Unlock()

	// Delivered: not sent again within the repeat interval, however many
	// evaluations pass. The receiver now fails, which nothing notices yet.
	h.status.Store(http.StatusServiceUnavailable)
	srv.set(Server{Name: "db", State: "ready"})
	// The resolution fails until the receiver recovers, then arrives once.
	select {
	case <-failed:
	case <-time.After(10 * time.Second):
		t.Fatal("the resolution was never attempted")
	}
	h.status.Store(http.StatusOK)
	m = h.next(t)
	if m.Status != StatusResolved || m.Alerts[0].Fingerprint != a.Fingerprint || !m.Alerts[0].StartsAt.Equal(a.StartsAt) || m.Alerts[0].EndsAt.IsZero() {
		t.Fatalf("resolution %+v", m)
	}
	select {
	case extra := <-h.got:
		t.Errorf("sent again: %+v", extra)
	case <-time.After(200 * time.Millisecond):
	}
	cmu.Lock()
	if strings.Join(changes, ",") != "firing,resolved" {
		t.Errorf("changes %v", changes)
	}
	cmu.Unlock()
}

// A receiver that answers an error is retried at the next evaluations
// until it accepts, and the failure is reported once.
func TestRunnerRetriesAFailingReceiver(t *testing.T) {
	h := newHook(t)
	h.status.Store(http.StatusInternalServerError)
	srv := &servers{}
	srv.set(Server{Name: "db", State: "failed"})
	errs := make(chan error, 64)
	r := Start(t.Context(), Options{
		Settings:   Settings{Rules: []config.AlertRule{{Name: "Down", Condition: config.AlertFailed}}},
		Interval:   10 * time.Millisecond,
		Servers:    srv.get,
		Webhook:    &Webhook{URL: h.srv.URL + "/?token=s3cret"},
		OnDelivery: func(_ Alert, err error) { errs <- err },
	})
	defer r.Stop()
	for i := 0; i < 3; i++ {
		select {
		case err := <-errs:
			if !errors.Is(err, ErrDelivery) || !strings.Contains(err.Error(), "500 Internal Server Error: receiver is unwell") || strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("attempt %d: %v", i, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no delivery attempt")
		}
	}
	h.status.Store(http.StatusOK)
	if m := h.next(t); m.Status != StatusFiring {
		t.Errorf("after recovery: %+v", m)
	}
}

// A receiver that does not answer is given up after the webhook's
// timeout; Stop does not wait for it longer than that.
func TestWebhookTimeoutAndRedirect(t *testing.T) {
	block := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(block)
	a := Alert{Status: StatusFiring, Labels: map[string]string{"alertname": "X"}, StartsAt: t0, Fingerprint: "f"}
	err := (&Webhook{URL: slow.URL, Timeout: 50 * time.Millisecond}).Send(context.Background(), a)
	if !errors.Is(err, ErrDelivery) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout: %v", err)
	}

	redirect := httptest.NewServer(http.RedirectHandler("http://127.0.0.1:1/elsewhere", http.StatusTemporaryRedirect))
	defer redirect.Close()
	err = (&Webhook{URL: redirect.URL + "/?key=abc"}).Send(context.Background(), a)
	if !errors.Is(err, ErrDelivery) || !strings.Contains(err.Error(), "307") || strings.Contains(err.Error(), "abc") {
		t.Errorf("redirect: %v", err)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pw@hooks.example/x?token=1": "https://hooks.example/x",
		"http://h:9/p": "http://h:9/p",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
