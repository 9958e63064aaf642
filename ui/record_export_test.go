package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

func exportsTo(t *testing.T) string {
	dir := t.TempDir()
	old := exportDir
	exportDir = func() (string, error) { return dir, nil }
	t.Cleanup(func() { exportDir = old })
	return dir
}

func onlyFile(t *testing.T, dir, suffix string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"+suffix))
	if len(files) != 1 {
		t.Fatalf("exports %v, want one *%s", files, suffix)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	return string(b)
}

// TestSaveFrameAndResult: s saves the selected traffic frame, and the
// result the viewer shows, to files.
func TestSaveFrameAndResult(t *testing.T) {
	dir := exportsTo(t)
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 140, 40)
	hs.keys("j") // everything
	raw := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"saved frame"}]}}`)
	rt.Emit(runtime.TrafficFrame{EventHeader: runtime.EventHeader{Time: uitest.Clock, Server: "everything"},
		Frame: jsonrpc.Frame{Dir: jsonrpc.In, Time: uitest.Clock, Kind: jsonrpc.KindResult, Method: "tools/call", ID: "7", Size: len(raw), Raw: raw}})
	hs.keys("6", "tab")
	hs.waitText("1 frame")
	hs.keys("s")
	hs.waitText("saved the frame to " + dir)
	if got := onlyFile(t, dir, "-everything-frame.json"); !strings.Contains(got, "\"text\": \"saved frame\"") {
		t.Errorf("the saved frame:\n%s", got)
	}

	hs.keys("tab", "2", "tab", "j", "j")
	hs.waitText("› echo")
	hs.keys("enter")
	hs.waitText("Call everything › echo")
	hs.keys("h", "i")
	hs.waitText("arguments match the schema")
	hs.keys("enter")
	hs.waitText("Result of everything › echo")
	hs.keys("s")
	hs.waitText("saved the result to " + dir)
	if got := onlyFile(t, dir, "-everything-result.json"); !strings.Contains(got, `"content"`) {
		t.Errorf("the saved result:\n%s", got)
	}
}
