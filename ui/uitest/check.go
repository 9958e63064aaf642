package uitest

import (
	"context"
	"fmt"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/runtime/check"
)

// Check is a fake compatibility check with the signature of
// ui.Options.Check: it decides CheckItems one by one, reporting each to
// progress, as check.Run does. When ctx ends, the items not yet decided
// are SKIP, as they are in check.Run. It records "check NAME" when it
// starts and "check NAME done" when it returns.
func (r *Runtime) Check(ctx context.Context, server string, progress func(check.Item)) (check.Report, error) {
	r.mu.Lock()
	r.record("check %s", server)
	items, hold, holdAt, fail := r.CheckItems, r.HoldCheck, r.HoldCheckAt, r.CheckErr
	srv, known := r.snap.Server(server)
	r.mu.Unlock()
	defer r.record("check %s done", server)
	if !known {
		return check.Report{}, fmt.Errorf("checking %q: %w", server, runtime.ErrUnknownServer)
	}
	if items == nil {
		items = CheckFixture()
	}
	rep := check.Report{Server: server, Transport: srv.Transport.String()}
	for i, it := range items {
		if hold != nil && i == holdAt {
			select {
			case <-hold:
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			it.Status, it.Reason, it.Duration = check.Skip, "skipped: the check was cancelled", 0
		}
		rep.Items = append(rep.Items, it)
		if progress != nil {
			progress(it)
		}
	}
	return rep, fail
}

// CheckFixture is a finished check with every status: one FAIL
// (cancellation), one WARN (bounded results), one SKIP and the rest PASS,
// with fixed durations so goldens are stable.
func CheckFixture() []check.Item {
	it := func(id string, st check.Status, ms int, reason string) check.Item {
		return check.Item{ID: id, Name: check.Name(id), Status: st, Reason: reason, Duration: time.Duration(ms) * time.Millisecond}
	}
	return []check.Item{
		it(check.IDInitialize, check.Pass, 212, "initialized on 2025-06-18 (asked 2025-11-25) as example-servers/everything 1.0.0"),
		it(check.IDToolsList, check.Pass, 8, "listed 4 tools in 1 page"),
		it(check.IDCall, check.Pass, 15, `called echo with {"message":"mcpdeck"}: 1 text block`),
		it(check.IDInvalidInput, check.Pass, 6, "echo with the wrong argument type answered error -32602 (invalid params)"),
		it(check.IDCancellation, check.Fail, 1500, "the server answered tools/call longRunningOperation (request 7) after it was cancelled: once notifications/cancelled arrives, stop and send no response"),
		it(check.IDReconnect, check.Pass, 640, "the outstanding call was rejected when the transport dropped; a fresh connection initialized and listed the same 4 tool names"),
		it(check.IDShutdown, check.Pass, 31, "exited 31ms after stdin closed; no process of its group remains"),
		it(check.IDStableNames, check.Pass, 0, "the same 4 tool names after a reconnect"),
		it(check.IDBoundedResults, check.Warn, 0, "a tools/call result had 512.0KiB, over 256.0KiB: large results crowd a model's context"),
		it(check.IDActionableErrors, check.Pass, 0, "every protocol error had a code and a message"),
		it(check.IDNoSecrets, check.Skip, 0, "skipped: the configuration holds no secret values to look for"),
		it(check.IDResponseIDs, check.Pass, 0, "every response kept its request id"),
		it(check.IDNoNotification, check.Pass, 0, "no notification answered a request"),
		it(check.IDStdoutClean, check.Pass, 0, "nothing but JSON-RPC on stdout"),
	}
}
