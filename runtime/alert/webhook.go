package alert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"mcpdeck/internal/cause"
)

// ErrDelivery: the webhook did not accept an alert.
var ErrDelivery = errors.New("alert delivery failed")

// Message is Alertmanager's webhook payload (version 4): what Alertmanager
// POSTs to a webhook receiver, so a receiver written for Alertmanager
// (a chat bridge, an incident tool) takes mcpdeck's alerts as they are.
// mcpdeck sends each alert in a message of its own, grouped by all its
// labels.
type Message struct {
	Version  string `json:"version"`
	GroupKey string `json:"groupKey"`
	// TruncatedAlerts is always 0: one alert per message.
	TruncatedAlerts   uint64            `json:"truncatedAlerts"`
	Receiver          string            `json:"receiver"`
	Status            string            `json:"status"`
	Alerts            []WireAlert       `json:"alerts"`
	GroupLabels       map[string]string `json:"groupLabels"`
	CommonLabels      map[string]string `json:"commonLabels"`
	CommonAnnotations map[string]string `json:"commonAnnotations"`
	ExternalURL       string            `json:"externalURL"`
}

// WireAlert is one alert of a Message.
type WireAlert struct {
	Status      string            `json:"status"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	// StartsAt and EndsAt are RFC 3339; a firing alert's EndsAt is the
	// zero time, "0001-01-01T00:00:00Z", as Alertmanager sends it.
	StartsAt     time.Time `json:"startsAt"`
	EndsAt       time.Time `json:"endsAt"`
	GeneratorURL string    `json:"generatorURL"`
	Fingerprint  string    `json:"fingerprint"`
}

// MessageOf is the payload that carries a.
func MessageOf(a Alert, receiver, externalURL, generatorURL string) Message {
	return Message{
		Version: "4", GroupKey: groupKey(a.Labels), Receiver: receiver, Status: a.Status,
		Alerts: []WireAlert{{Status: a.Status, Labels: a.Labels, Annotations: a.Annotations,
			StartsAt: a.StartsAt.UTC(), EndsAt: a.EndsAt.UTC(), GeneratorURL: generatorURL, Fingerprint: a.Fingerprint}},
		GroupLabels: a.Labels, CommonLabels: a.Labels, CommonAnnotations: a.Annotations, ExternalURL: externalURL,
	}
}

// Webhook POSTs alerts to a receiver.
type Webhook struct {
	URL     string
	Headers map[string]string
	// Timeout bounds one POST.
	Timeout time.Duration
	// Receiver names the receiver in the payload; default "mcpdeck".
	Receiver string
	// ExternalURL and GeneratorURL say where the alerts come from (the
	// monitor's /metrics, when it serves them).
	ExternalURL, GeneratorURL string
	// UserAgent is sent as User-Agent.
	UserAgent string
	// Client is the HTTP client; nil means one that follows no redirect.
	Client *http.Client
}

// Send delivers one alert: a POST of its Message, accepted with any 2xx.
func (w *Webhook) Send(ctx context.Context, a Alert) error {
	receiver := w.Receiver
	if receiver == "" {
		receiver = "mcpdeck"
	}
	body, err := json.Marshal(MessageOf(a, receiver, w.ExternalURL, w.GeneratorURL))
	if err != nil {
		return fmt.Errorf("encoding alert %s: %w", a.Labels[LabelAlertName], err)
	}
	if w.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrDelivery, RedactURL(w.URL), err)
	}
	req.Header.Set("Content-Type", "application/json")
	if w.UserAgent != "" {
		req.Header.Set("User-Agent", w.UserAgent)
	}
	for k, v := range w.Headers {
		req.Header.Set(k, v)
	}
	client := w.Client
	if client == nil {
		client = noRedirects
	}
	resp, err := client.Do(req)
	if err != nil {
		// url.Error would quote the whole URL, query and all.
		return fmt.Errorf("%w: POST %s: %w", ErrDelivery, RedactURL(w.URL), cause.Of(err))
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%w: POST %s answered %s: %s", ErrDelivery, RedactURL(w.URL), resp.Status, strings.TrimSpace(string(snippet)))
	}
	return nil
}

// noRedirects is the default client: a receiver that redirects is
// misconfigured, and following it would send the alert (and the headers'
// credentials) somewhere not configured.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// RedactURL keeps a webhook URL's scheme, host and path for messages and
// logs, and drops its query and user info, where tokens tend to be.
func RedactURL(raw string) string {
	s, _, _ := strings.Cut(raw, "?")
	if scheme, rest, ok := strings.Cut(s, "://"); ok {
		if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
			rest = rest[at+1:]
		}
		return scheme + "://" + rest
	}
	return s
}
