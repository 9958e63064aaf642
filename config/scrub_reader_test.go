package config

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// Scrubber.Reader finds a secret however the text is cut into reads, its
// JSON-escaped form too, and gives everything else out unchanged.
func TestScrubReaderAcrossReads(t *testing.T) {
	t.Parallel()
	sc := Server{Env: map[string]string{"API_TOKEN": `tok-"quoted"-0123456789`, "DB_PASSWORD": "hunter2hunter2"}}.Scrubber()
	in := `{"a":"tok-\"quoted\"-0123456789","b":"xhunter2hunter2y","c":"hunter2hunte"}` + "\n" + "tail hunter2hunter2"
	want := `{"a":"••••••","b":"x••••••y","c":"hunter2hunte"}` + "\n" + "tail ••••••"
	for name, r := range map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(in) },
		"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(in)) },
		"halves":   func() io.Reader { return iotest.HalfReader(strings.NewReader(in)) },
	} {
		got, err := io.ReadAll(sc.Reader(r()))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v\nwant %q", name, got, err, want)
		}
	}
	// Nothing complete is held back: a line is given out whole at once.
	pr, pw := io.Pipe()
	r := sc.Reader(pr)
	go pw.Write([]byte("no secret here\n"))
	buf := make([]byte, 64)
	n, err := r.Read(buf)
	if err != nil || string(buf[:n]) != "no secret here\n" {
		t.Fatalf("first read %q, %v", buf[:n], err)
	}
	pw.Close()
	if _, err := r.Read(buf); err != io.EOF {
		t.Fatalf("after the writer closed: %v, want EOF", err)
	}
}

// With nothing to scrub the reader adds nothing.
func TestScrubReaderPassThrough(t *testing.T) {
	t.Parallel()
	got, err := io.ReadAll((&Scrubber{}).Reader(iotest.OneByteReader(strings.NewReader("plain text"))))
	if err != nil || string(got) != "plain text" {
		t.Fatalf("%q, %v", got, err)
	}
}

// BenchmarkScrubReader is the intake's cost per byte of what a server
// sends: a stream of JSON-RPC lines read in 4 KiB reads, with no secret
// to scrub and with three (none of them in the text: the common case).
func BenchmarkScrubReader(b *testing.B) {
	line := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("a log line ", 20) + `"}}` + "\n"
	text := strings.Repeat(line, 1000)
	for _, bc := range []struct {
		name string
		sc   *Scrubber
	}{
		{"none", &Scrubber{}},
		{"three", Server{Env: map[string]string{"API_TOKEN": "tok-0123456789abcdef", "DB_PASSWORD": "hunter2hunter2", "GITHUB_TOKEN": "ghp_16C7e42F292c6912E7710c838347Ae178B4a"}}.Scrubber()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 4096)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				r := bc.sc.Reader(strings.NewReader(text))
				for {
					if _, err := r.Read(buf); err != nil {
						break
					}
				}
			}
		})
	}
}
