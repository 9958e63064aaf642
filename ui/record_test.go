package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
	"mcpdeck/ui/uitest"
)

// TestRecordKey starts a recording with ctrl+r, shows it in the header
// with its size, stops it with ctrl+r and leaves a file that replays
// what happened in between.
func TestRecordKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var changed []*record.Recorder
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 140, 40, func(o *Options) {
		o.Recording = &Recording{Dir: dir, Options: record.Options{Version: "test", SampleEvery: -1},
			Changed: func(r *record.Recorder) { changed = append(changed, r) }}
	})
	ctrlR := tea.KeyMsg{Type: tea.KeyCtrlR}
	hs.tm.Send(ctrlR)
	hs.waitText("● REC", "recording to "+dir)
	data, _ := json.Marshal("while recording")
	rt.Emit(runtime.LogMessage{EventHeader: runtime.EventHeader{Time: uitest.Clock, Server: "everything"}, Level: "info", Data: data})
	hs.tm.Send(ctrlR)
	v := hs.waitText("saved " + dir)
	if strings.Contains(strings.SplitN(v, "\n", 2)[0], "● REC") {
		t.Error("the header still says REC after stopping")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("recordings: %v", files)
	}
	fi, _ := os.Stat(files[0])
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	rec, err := record.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range rec.Entries {
		if lm, ok := e.Event.(runtime.LogMessage); ok && strings.Contains(string(lm.Data), "while recording") {
			found = true
		}
	}
	if !found || rec.Header.MCPDeck != "test" {
		t.Errorf("the recording lacks the log line (header %+v, %d entries)", rec.Header, len(rec.Entries))
	}
	if len(changed) != 2 || changed[0] == nil || changed[1] != nil {
		t.Errorf("Changed calls: %v", changed)
	}
}

func TestRecordKeyWithoutRecording(t *testing.T) {
	t.Parallel()
	hs := start(t, uitest.New(uitest.ReadySnapshot()), 140, 40)
	hs.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlR})
	hs.waitText("recording is not available", "--record FILE")
}
