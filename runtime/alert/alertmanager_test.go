//go:build linux

package alert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"mcpdeck/internal/porttest"
	"mcpdeck/runtime/fleet/fleettest"
)

// raw is a webhook receiver that keeps every body as it came.
func rawHook(t *testing.T) (*httptest.Server, chan []byte) {
	got := make(chan []byte, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// startAlertmanager runs a real Alertmanager on loopback that sends every
// alert, grouped by all its labels, to hookURL at once.
func startAlertmanager(t *testing.T, hookURL string) string {
	bin := fleettest.Tool(t, "prometheus-alertmanager", "prometheus-alertmanager")
	dir := t.TempDir()
	cfg := fmt.Sprintf(`route:
  receiver: hook
  group_by: ['...']
  group_wait: 0s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: %q
        send_resolved: true
`, hookURL)
	if err := os.WriteFile(filepath.Join(dir, "am.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	port := porttest.Free(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	var out bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "am.yml"), "--storage.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--cluster.listen-address=", "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	client := &http.Client{Timeout: time.Second}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(30 * time.Second)
	// Polling an external process's readiness: it has no event to wait on.
	for {
		if resp, err := client.Get(url + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		select {
		case <-exited:
			t.Fatalf("alertmanager exited: %s", out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("alertmanager not ready in 30s: %s", out.String())
		}
	}
}

// shape is a JSON document's structure: every key path with its JSON type.
func shape(t *testing.T, doc []byte) []string {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	var out []string
	var walk func(string, any)
	walk = func(p string, v any) {
		switch x := v.(type) {
		case map[string]any:
			// The label and annotation maps' keys are data, not structure.
			if strings.HasSuffix(p, "abels") || strings.HasSuffix(p, "nnotations") {
				out = append(out, p+": object")
				return
			}
			for k, e := range x {
				walk(p+"."+k, e)
			}
		case []any:
			out = append(out, p+": array")
			for _, e := range x {
				walk(p+"[]", e)
			}
		case string:
			out = append(out, p+": string")
		case float64:
			out = append(out, p+": number")
		case bool:
			out = append(out, p+": bool")
		default:
			out = append(out, p+": null")
		}
	}
	walk("", v)
	sort.Strings(out)
	return slices.Compact(out)
}

// TestPayloadMatchesAlertmanager sends one alert through a real
// Alertmanager and the same alert through mcpdeck's webhook, firing and
// resolved, and compares what the two receivers got: the same document
// structure, the same fingerprint (the dedup key) and the same groupKey.
func TestPayloadMatchesAlertmanager(t *testing.T) {
	amHook, amGot := rawHook(t)
	am := startAlertmanager(t, amHook.URL)
	ourHook, ourGot := rawHook(t)

	labels := map[string]string{"alertname": "MCPServerFailed", "severity": "critical", LabelServer: "db", "instance": "host1"}
	annotations := map[string]string{"summary": "MCP server db has failed", "description": "db is in the failed state"}
	starts := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
	post := func(ends time.Time) {
		a := map[string]any{"labels": labels, "annotations": annotations, "startsAt": starts, "generatorURL": "http://host1:9464/metrics"}
		if !ends.IsZero() {
			a["endsAt"] = ends
		}
		body, _ := json.Marshal([]any{a})
		resp, err := http.Post(am+"/api/v2/alerts", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("posting to alertmanager: %s %s", resp.Status, b)
		}
	}
	recv := func(ch chan []byte, who string) []byte {
		select {
		case b := <-ch:
			return b
		case <-time.After(30 * time.Second):
			t.Fatalf("%s sent nothing in 30s", who)
			return nil
		}
	}
	w := &Webhook{URL: ourHook.URL, Receiver: "hook", GeneratorURL: "http://host1:9464/metrics"}
	ours := Alert{Labels: labels, Annotations: annotations, StartsAt: starts, Fingerprint: fingerprint(labels)}

	for _, status := range []string{StatusFiring, StatusResolved} {
		ends := time.Time{}
		if status == StatusResolved {
			ends = time.Now().UTC().Truncate(time.Second)
		}
		post(ends)
		theirs := recv(amGot, "alertmanager")
		ours.Status, ours.EndsAt = status, ends
		if err := w.Send(t.Context(), ours); err != nil {
			t.Fatal(err)
		}
		mine := recv(ourGot, "mcpdeck")
		if a, b := shape(t, theirs), shape(t, mine); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: structure differs\nalertmanager: %v\nmcpdeck:      %v", status, a, b)
		}
		var am, me Message
		_ = json.Unmarshal(theirs, &am)
		_ = json.Unmarshal(mine, &me)
		if me.Version != am.Version || me.GroupKey != am.GroupKey || me.Status != am.Status || me.Status != status {
			t.Errorf("%s: version %q/%q groupKey %q/%q status %q/%q", status, me.Version, am.Version, me.GroupKey, am.GroupKey, me.Status, am.Status)
		}
		if len(am.Alerts) != 1 || me.Alerts[0].Fingerprint != am.Alerts[0].Fingerprint || !me.Alerts[0].StartsAt.Equal(am.Alerts[0].StartsAt) ||
			!me.Alerts[0].EndsAt.Equal(am.Alerts[0].EndsAt) || !reflect.DeepEqual(me.GroupLabels, am.GroupLabels) || !reflect.DeepEqual(me.CommonLabels, am.CommonLabels) {
			t.Errorf("%s: alertmanager %s\nmcpdeck %s", status, theirs, mine)
		}
	}
}
