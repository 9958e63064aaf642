//go:build linux

package runtime

import (
	"bytes"
	"os"
	"testing"
)

func TestPipeUnread(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if n, ok := pipeUnread(w); !ok || n != 0 {
		t.Fatalf("empty pipe: %d %v", n, ok)
	}
	if _, err := w.Write([]byte("{\"id\":1}\n")); err != nil {
		t.Fatal(err)
	}
	if n, ok := pipeUnread(w); !ok || n != 9 {
		t.Fatalf("after a write: %d %v; want 9 unread", n, ok)
	}
	if _, err := r.Read(make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	if n, ok := pipeUnread(w); !ok || n != 5 {
		t.Fatalf("after reading 4: %d %v; want 5", n, ok)
	}
	if _, ok := pipeUnread(&bytes.Buffer{}); ok {
		t.Fatal("a buffer is not a pipe")
	}
}
