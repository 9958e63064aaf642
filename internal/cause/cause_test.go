package cause

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOfURL uses a real failed request: the cause names neither the URL
// nor its query (a token there must not reach a message), also when the
// *url.Error is wrapped, and errors.Is still matches the deadline.
func TestOfURL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:1/mcp?token=s3cret", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = http.DefaultClient.Do(req)
	if err == nil || !strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("the request's own error should quote the URL: %v", err)
	}
	for _, e := range []error{err, fmt.Errorf("probing: %w", err)} {
		got := Of(e)
		if got == nil || strings.Contains(got.Error(), "s3cret") || strings.Contains(got.Error(), "127.0.0.1") {
			t.Errorf("Of(%v) = %v, want the cause without the URL", e, got)
		}
		if !errors.Is(got, context.DeadlineExceeded) {
			t.Errorf("Of(%v) = %v, which no longer matches context.DeadlineExceeded", e, got)
		}
	}
}

// TestOfPath reads a real missing file: the cause is the errno alone.
func TestOfPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.json")
	_, err := os.ReadFile(path)
	got := Of(err)
	if got != syscall.ENOENT {
		t.Errorf("Of(%v) = %#v, want ENOENT alone", err, got)
	}
	if strings.Contains(got.Error(), path) {
		t.Errorf("Of(%v) still names the path", err)
	}
}

// TestOfOther leaves every other error as it is.
func TestOfOther(t *testing.T) {
	plain := errors.New("plain")
	if Of(plain) != plain {
		t.Error("a plain error was changed")
	}
	if Of(nil) != nil {
		t.Error("Of(nil) is not nil")
	}
}
