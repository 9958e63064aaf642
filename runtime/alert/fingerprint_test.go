package alert

import (
	"testing"

	"github.com/prometheus/common/model"
)

// TestFingerprintAsModel: fingerprint is prometheus/common/model's
// LabelSet.Fingerprint, the one Alertmanager dedups by
// (TestPayloadMatchesAlertmanager compares it with a real Alertmanager's too).
func TestFingerprintAsModel(t *testing.T) {
	for _, labels := range []map[string]string{
		{},
		{"alertname": "MCPServerDown"},
		{"alertname": "MCPServerDown", "server": "db", "host": "h-1", "severity": "critical"},
		{"a": "", "b": "ü\xff"},
	} {
		ls := model.LabelSet{}
		for k, v := range labels {
			ls[model.LabelName(k)] = model.LabelValue(v)
		}
		if got, want := fingerprint(labels), ls.Fingerprint().String(); got != want {
			t.Errorf("fingerprint(%v) = %s, model's is %s", labels, got, want)
		}
	}
}
