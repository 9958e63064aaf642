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

// TestExportExtensions: a saved resource is named for what it is. The
// system's MIME table lists text/plain's extensions alphabetically,
// ".asc" first on Debian (an OpenPGP armored file's): the usual one wins.
func TestExportExtensions(t *testing.T) {
	for mime, want := range map[string]string{
		"text/plain": ".txt", "text/plain; charset=utf-8": ".txt", "text/html": ".html",
		"application/json": ".json", "image/png": ".png", "image/jpeg": ".jpg", "application/pdf": ".pdf",
		"application/octet-stream": ".bin", "": ".bin", "not a type": ".bin", "application/x-mcpdeck-unknown": ".bin",
		"text/x-mcpdeck-unknown": ".txt",
	} {
		if got := extension(mime); got != want {
			t.Errorf("extension(%q) = %q, want %q", mime, got, want)
		}
	}
	// A type only the system's table knows: its extensions come sorted,
	// ".txt" is preferred where it is one of them.
	old := mimeExtensions
	t.Cleanup(func() { mimeExtensions = old })
	mimeExtensions = func(string) ([]string, error) { return []string{".asc", ".text", ".txt"}, nil }
	if got := extension("text/x-mcpdeck-listed"); got != ".txt" {
		t.Errorf("a text type the system lists as .asc, .text, .txt: %q", got)
	}
	mimeExtensions = func(string) ([]string, error) { return []string{".mcpd", ".mcpdeck"}, nil }
	if got := extension("application/x-mcpdeck-listed"); got != ".mcpd" {
		t.Errorf("a type only the system lists: %q", got)
	}
}

// TestSaveTextBlobResource: s on a resource read as one text/plain blob
// saves its bytes to a .txt file, never .asc.
func TestSaveTextBlobResource(t *testing.T) {
	dir := exportsTo(t)
	rt := uitest.New(uitest.ReadySnapshot())
	rt.Contents["test://static/resource/2"] = []byte(`{"contents":[{"uri":"test://static/resource/2","mimeType":"text/plain","blob":"aGVsbG8gYmxvYgo="}]}`)
	hs := start(t, rt, 100, 30)
	hs.keys("j", "8", "tab", "j", "enter")
	hs.waitText("binary · text/plain", "s saves it")
	hs.keys("s")
	hs.waitText("saved the resource to " + dir)
	if got := onlyFile(t, dir, "-everything-resource.txt"); got != "hello blob\n" {
		t.Errorf("the saved resource: %q", got)
	}
}
