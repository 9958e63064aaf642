package check

import (
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// wantItems fails the test for every listed item whose status differs.
func wantItems(t *testing.T, rep Report, want map[string]Status) {
	t.Helper()
	for id, st := range want {
		it, ok := rep.Item(id)
		if !ok {
			t.Errorf("no item %s in the report", id)
			continue
		}
		if it.Status != st {
			t.Errorf("%s = %s (%s), want %s", id, it.Status, it.Reason, st)
		}
	}
}

func TestModernFakeChecksInTheModernEra(t *testing.T) {
	t.Parallel()
	rep := runCheck(t, fake(jsonrpctest.Modern), testOptions)
	if rep.Era != "modern" || rep.ProtocolVersion != "2026-07-28" || rep.Failed() {
		t.Fatalf("era %q %q, failed %v", rep.Era, rep.ProtocolVersion, rep.Failed())
	}
	if it, _ := rep.Item(IDInitialize); !strings.HasPrefix(it.Reason, "modern era (server/discover): protocol 2026-07-28") {
		t.Errorf("initialize does not say the era: %s", it.Reason)
	}
	wantItems(t, rep, map[string]Status{
		IDDiscover: Pass, IDUnsupportedVersion: Pass, IDMissingMeta: Pass, IDHeaderMismatch: Skip, IDStateless: Pass,
		IDCancellation: Pass, IDResponseIDs: Pass,
	})
}

func TestModernFakeWithoutResultTypeFailsDiscover(t *testing.T) {
	t.Parallel()
	rep := runCheck(t, fake(jsonrpctest.ModernNoResultType), testOptions)
	wantItems(t, rep, map[string]Status{IDDiscover: Fail})
	if it, _ := rep.Item(IDDiscover); !strings.Contains(it.Reason, "no resultType") {
		t.Errorf("discover: %s", it.Reason)
	}
}

func TestLegacyServerHasNoModernItems(t *testing.T) {
	t.Parallel()
	rep := runCheck(t, fake(jsonrpctest.Normal), Options{CallTimeout: 2 * time.Second, StopGrace: time.Second, Protocol: "auto"})
	if rep.Era != "legacy" || rep.ProtocolVersion != "2025-11-25" {
		t.Fatalf("era %q %q", rep.Era, rep.ProtocolVersion)
	}
	if _, ok := rep.Item(IDDiscover); ok {
		t.Error("a legacy server's report has the modern items")
	}
}

// tsStdio is the TypeScript SDK v2 peer on stdio.
func tsStdio(t *testing.T, era jsonrpctest.Era) config.Server {
	path, args, env := jsonrpctest.TSServerStdio(t, era)
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == jsonrpctest.EnvNodeModules {
			vars[k] = v
		}
	}
	return config.Server{Name: "ts-" + string(era), Transport: config.TransportStdio, Command: path, Args: args, Env: vars, Enabled: true,
		StartupTimeout: 30 * time.Second}
}

// TestDualEraPeerPassesBothEras: the TypeScript SDK v2 dual-era server
// passes the check in each era, and says which.
func TestDualEraPeerPassesBothEras(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"legacy", "modern"} {
		t.Run(proto, func(t *testing.T) {
			rep := runCheck(t, tsStdio(t, jsonrpctest.DualEra), Options{CallTimeout: 5 * time.Second, StopGrace: time.Second, Protocol: proto})
			if rep.Era != proto || rep.Failed() {
				logReport(t, rep)
				t.Fatalf("--protocol %s: era %q, failed %v", proto, rep.Era, rep.Failed())
			}
			if proto == "modern" {
				wantItems(t, rep, map[string]Status{IDDiscover: Pass, IDUnsupportedVersion: Pass, IDMissingMeta: Pass, IDStateless: Pass})
			}
		})
	}
}

// TestModernPeersOverHTTP: the header-mismatch item needs HTTP.
func TestModernPeersOverHTTP(t *testing.T) {
	t.Parallel()
	for name, url := range map[string]func(*testing.T) string{
		"ts-modern": func(t *testing.T) string { return jsonrpctest.TSServerHTTP(t, jsonrpctest.ModernEra) },
		"gosdk":     func(t *testing.T) string { return jsonrpctest.GoSDKHTTP(t) },
	} {
		t.Run(name, func(t *testing.T) {
			srv := config.Server{Name: name, Transport: config.TransportHTTP, URL: url(t), Enabled: true, StartupTimeout: 30 * time.Second}
			rep := runCheck(t, srv, Options{CallTimeout: 5 * time.Second, StopGrace: time.Second})
			if rep.Era != "modern" {
				t.Fatalf("era %q", rep.Era)
			}
			wantItems(t, rep, map[string]Status{IDDiscover: Pass, IDUnsupportedVersion: Pass, IDMissingMeta: Pass, IDHeaderMismatch: Pass, IDStateless: Pass})
		})
	}
}

// TestGoSDKStdioServesMissingMetaAsLegacy pins a finding: go-sdk v1.8.0 on
// stdio serves a request without _meta as a legacy one.
func TestGoSDKStdioServesMissingMetaAsLegacy(t *testing.T) {
	t.Parallel()
	rep := runCheck(t, fake(jsonrpctest.GoSDKModern), Options{CallTimeout: 5 * time.Second, StopGrace: time.Second})
	if rep.Era != "modern" {
		t.Fatalf("era %q", rep.Era)
	}
	wantItems(t, rep, map[string]Status{IDDiscover: Pass, IDMissingMeta: Warn, IDStateless: Pass})
}
