package ui

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// An image block of a result is saved as a file of its own, decoded, with
// its type's extension: server-everything's get-tiny-image answers text,
// a PNG and text. s offers the whole result or the image; the image comes
// out a PNG file. (s used to save only the result's JSON, base64 and all.)
func TestSaveImageBlockOnTheRealRuntime(t *testing.T) {
	dir := exportsTo(t)
	hs := startEverything(t)
	hs.openTool("get-tiny-image")
	hs.keys("enter")
	hs.waitText("Result of everything › get-tiny-image", "[image] image/png")
	hs.keys("s")
	hs.waitText("Save what?", "the whole result, as JSON", "content 2: image (image/png,", ") as .png")
	hs.keys("j", "enter")
	hs.waitText("saved the content-2 to " + dir)
	png := onlyFile(t, dir, "-content-2.png")
	if !strings.HasPrefix(png, "\x89PNG\r\n\x1a\n") {
		t.Fatalf("the saved image is not a PNG: % x", []byte(png[:min(len(png), 16)]))
	}
	// The whole result is still there to be saved, as JSON.
	hs.keys("s")
	hs.waitText("Save what?")
	hs.keys("enter")
	hs.waitText("saved the result to " + dir)
	if j := onlyFile(t, dir, "-result.json"); !strings.Contains(j, `"type": "image"`) {
		t.Fatalf("the result JSON: %s", j)
	}
}

// Audio is saved with its type's extension too, and an embedded resource
// as its text or bytes; data that is not base64 is reported, not saved.
func TestBlockSavables(t *testing.T) {
	wav := []byte("RIFF\x24\x00\x00\x00WAVEfmt ")
	for _, tc := range []struct {
		c         runtime.Content
		label, ok string
	}{
		{runtime.Content{Type: "audio", MIMEType: "audio/wav", Data: base64.StdEncoding.EncodeToString(wav)}, "content 1: audio (audio/wav, 16B) as .wav", "saved"},
		{runtime.Content{Type: "audio", MIMEType: "audio/mpeg", Data: "!!not base64!!"}, "as .mp3", "not valid base64"},
		{runtime.Content{Type: "resource", Resource: &runtime.EmbeddedContent{URI: "file:///a.txt", Text: "# hi"}}, "content 1: resource file:///a.txt (text/plain, 4B) as .txt", "saved"},
	} {
		dir := exportsTo(t)
		it, ok := blockSavable("srv", 0, tc.c)
		if !ok || !strings.Contains(it.label, tc.label) {
			t.Errorf("%s: %q %v, want a label with %q", tc.c.Type, it.label, ok, tc.label)
			continue
		}
		msg := it.save().(savedMsg)
		switch {
		case tc.ok == "saved" && msg.err != nil:
			t.Errorf("%s: %v", tc.label, msg.err)
		case tc.ok != "saved" && (msg.err == nil || !strings.Contains(msg.err.Error(), tc.ok)):
			t.Errorf("%s: %v, want %q", tc.label, msg.err, tc.ok)
		case tc.c.Type == "audio" && msg.err == nil:
			if got := onlyFile(t, dir, ".wav"); !bytes.Equal([]byte(got), wav) {
				t.Errorf("the audio file holds % x", got)
			}
		}
	}
	if _, ok := blockSavable("srv", 0, runtime.Content{Type: "text", Text: "x"}); ok {
		t.Error("a text block is offered as a file of its own")
	}
}

// enter on a notification row opens its params as the server sent them,
// pretty-printed: the demo server's heartbeat log, level and data.
func TestNotificationOpensItsParamsOnTheRealRuntime(t *testing.T) {
	t.Parallel()
	srv := demoServer(t)
	srv.PingInterval = time.Minute
	hs, _ := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{srv}}}, 140, 40)
	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	hs.keys("4", "tab")
	hs.waitText("heartbeat")
	hs.keys("p", "enter")
	v := hs.waitText("Notification notifications/message from demo", `"level": "info"`, `"msg": "heartbeat"`)
	if strings.Contains(v, "too large") {
		t.Fatalf("a small notification's params were not kept:\n%s", v)
	}
}
