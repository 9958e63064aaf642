package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/proc"
)

func TestKindOfClassifiesWhatTheRuntimeReturns(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  error
		want ErrorKind
	}{
		{&jsonrpc.CancelledError{Reason: "t", Timeout: true}, KindTimeout},
		{&jsonrpc.CancelledError{Reason: "user"}, KindCancelled},
		{&jsonrpc.CancelledError{Reason: "t", Timeout: true, Arrived: jsonrpc.Arrivals{Notifications: 2}}, KindProtocol},
		// A user's cancel is a cancel even if the server chattered meanwhile.
		{&jsonrpc.CancelledError{Reason: "user", Arrived: jsonrpc.Arrivals{Notifications: 42}}, KindCancelled},
		{context.Canceled, KindCancelled},
		{&jsonrpc.ClosedError{Method: "x", Cause: errors.New("EOF")}, KindClosed},
		{&jsonrpc.ClosedError{Method: "x", Cause: fmt.Errorf("server process %w", &proc.ExitError{Code: 3})}, KindExited},
		{&jsonrpc.Error{Code: -32602, Message: "bad"}, KindProtocol},
		{fmt.Errorf("starting: %w", proc.ErrNotFound), KindConfig},
		{fmt.Errorf("initialize: %w", ErrUnsupportedVersion), KindUnsupportedVersion},
		{fmt.Errorf("%w %q", ErrUnknownServer, "x"), KindUnknownServer},
		{&ArgumentsError{}, KindInvalidArguments},
		{jsonrpc.ErrMessageTooLarge, KindTooLarge},
		// An HTTP exchange that failed is the transport's kind (its hint:
		// check the url and that the server is up); a TLS failure stays
		// the configuration's, which no retry mends.
		{fmt.Errorf("probing: %w: connection refused", mcphttp.ErrUnreachable), KindTransport},
		{fmt.Errorf("initialize: %w: HTTP 502 Bad Gateway", mcphttp.ErrHTTPStatus), KindTransport},
		{fmt.Errorf("initialize: %w: not an event stream", mcphttp.ErrBadResponse), KindTransport},
		{fmt.Errorf("initialize: %w: certificate", mcphttp.ErrTLS), KindConfig},
		{errors.New("something else"), KindUnknown},
	}
	for _, c := range cases {
		if got := KindOf(c.err); got != c.want {
			t.Errorf("KindOf(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}

// An ErrorInfo kept in a snapshot (and round-tripped through JSON, as
// recordings and --json output do) still matches its kind's sentinels.
func TestErrorInfoMatchesSentinelsAcrossSnapshots(t *testing.T) {
	t.Parallel()
	info := errorInfo("s", "tools/call", &jsonrpc.CancelledError{Method: "tools/call", Reason: "timed out", Timeout: true})
	raw, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	var back ErrorInfo
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*ErrorInfo{info, &back} {
		if !errors.Is(e, ErrTimeout) || !errors.Is(e, ErrCancelled) || errors.Is(e, ErrClosed) {
			t.Errorf("%+v: timeout sentinels not matched", e)
		}
		wrapped := fmt.Errorf("server %q is failed: %w", "s", e)
		if KindOf(wrapped) != KindTimeout {
			t.Errorf("wrapped info: kind %s", KindOf(wrapped))
		}
	}
	if string(raw) == "" || !json.Valid(raw) || back.Kind != KindTimeout {
		t.Fatalf("round trip: %s → %+v", raw, back)
	}
	ce := callError("s", "tools/call", &jsonrpc.Error{Code: -32601, Message: "nope"})
	var rpcErr *RPCError
	if !errors.As(ce, &rpcErr) || !errors.Is(ce, ErrProtocol) || ce.Info.Code != -32601 {
		t.Fatalf("call error: %+v", ce)
	}
}

// Percentiles of health checks use the nearest rank: with two pings of 1
// and 3 ms the p95 is 3 ms, not the faster one.
func TestPingPercentilesNearestRank(t *testing.T) {
	t.Parallel()
	var p pingTracker
	p.record(3*time.Millisecond, true)
	p.record(1*time.Millisecond, true)
	st := p.stats()
	if st.P95 != 3*time.Millisecond || st.P50 != time.Millisecond {
		t.Fatalf("p50 %s p95 %s", st.P50, st.P95)
	}
	for i := 0; i < 98; i++ {
		p.record(time.Millisecond, true)
	}
	p.record(50*time.Millisecond, true)
	p.record(60*time.Millisecond, true)
	// The last 100 pings: 98 of 1 ms and two slow ones; the p95 is 1 ms.
	st = p.stats()
	if st.P95 != time.Millisecond || st.P50 != time.Millisecond {
		t.Fatalf("p50 %s p95 %s over %d", st.P50, st.P95, len(st.Recent))
	}
}

// A 2025 server refuses an unknown revision with -32602 and data.supported,
// a 2026 one with -32022: both say what they speak; other refusals do not.
func TestSupportedVersionsOfARefusal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want []string
	}{
		{&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unsupported protocol version", Data: []byte(`{"supported":["2025-06-18"],"requested":"1999-01-01"}`)}, []string{"2025-06-18"}},
		{fmt.Errorf("x: %w", &jsonrpc.Error{Code: -32022, Data: []byte(`{"supported":["2026-07-28"]}`)}), []string{"2026-07-28"}},
		{&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad"}, nil},
		{&jsonrpc.Error{Code: -32601, Data: []byte(`{"supported":["x"]}`)}, nil},
	} {
		if got := supportedVersions(tc.err); !slices.Equal(got, tc.want) {
			t.Errorf("supportedVersions(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	msg := versionRefusal([]string{"2025-11-25"}, []string{"2024-11-05"}, mcp.Preference{}).Error()
	if !strings.Contains(msg, "the server speaks 2024-11-05; upgrade the server or mcpdeck") {
		t.Errorf("refusal by an old server: %q", msg)
	}
}

// A server's -32022 answer and the runtime's own finding that no revision
// is usable are one concept: one sentinel matches both, as the kind table
// already classifies both as KindUnsupportedVersion.
func TestUnsupportedVersionIsOneSentinel(t *testing.T) {
	t.Parallel()
	answer := fmt.Errorf("server/discover: %w", &mcp.UnsupportedVersionError{Requested: "2026-07-28", Supported: []string{"2025-11-25"}})
	if !errors.Is(answer, ErrUnsupportedVersion) {
		t.Errorf("errors.Is(%v, runtime.ErrUnsupportedVersion) = false: a -32022 answer is an unsupported version", answer)
	}
	if !errors.Is(ErrUnsupportedVersion, mcp.ErrUnsupportedVersion) {
		t.Error("runtime.ErrUnsupportedVersion does not match mcp.ErrUnsupportedVersion: the concept is declared twice")
	}
	if got := KindOf(answer); got != KindUnsupportedVersion {
		t.Errorf("KindOf(%v) = %s, want %s", answer, got, KindUnsupportedVersion)
	}
}
