//go:build unix

package jsonrpctest

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestReadLineSkipsOverlongLines(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("a", 100) + "\n" + "ok\r\n" + "tail"
	r := bufio.NewReaderSize(strings.NewReader(in), 16)
	if _, err := readLine(r, 50); !errors.Is(err, errLineTooLong) {
		t.Fatalf("overlong line: err = %v, want errLineTooLong", err)
	}
	for _, want := range []string{"ok", "tail"} {
		line, err := readLine(r, 50)
		if err != nil || string(line) != want {
			t.Fatalf("readLine = %q, %v; want %q", line, err, want)
		}
	}
	if _, err := readLine(r, 50); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end: err = %v, want EOF", err)
	}
}

func TestLoadSettings(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	s, err := loadSettings(env(map[string]string{EnvSize: "123", EnvDelay: "1.5", EnvCount: "9", EnvSecret: "x"}))
	if err != nil || s.size != 123 || s.delay != 1500*time.Millisecond || s.count != 9 || s.secret != "x" {
		t.Fatalf("loadSettings = %+v, %v", s, err)
	}
	if s, _ := loadSettings(env(nil)); s.size != defaultSize || s.delay != defaultDelay || s.count != defaultCount {
		t.Errorf("defaults = %+v", s)
	}
	for _, bad := range []map[string]string{{EnvSize: "-1"}, {EnvDelay: "soon"}, {EnvCount: "many"}} {
		if _, err := loadSettings(env(bad)); !errors.Is(err, errBadSetting) {
			t.Errorf("loadSettings(%v) err = %v, want errBadSetting", bad, err)
		}
	}
}

func TestShiftID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{`7`: `1007`, `"abc"`: `"abc+1000"`} {
		if got := string(shiftID([]byte(in))); got != want {
			t.Errorf("shiftID(%s) = %s, want %s", in, got, want)
		}
	}
}
