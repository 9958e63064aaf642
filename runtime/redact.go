package runtime

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"

	"mcpdeck/config"
)

// redactor is a session's scrubber of its server's secrets: the configured
// ones and those obtained at run time (config.AddSecret, the tokens of
// MCP authorization). The rule for what is a secret is config's.
//
// Text from a server is scrubbed once, on its way in, by construction: the
// session reads the server's stdout (stdio) and every HTTP response body
// (remote) through the scrubber (reader, transport), and its stderr lines
// likewise (proc.Spec.Scrub). Everything the runtime holds of a server
// (results, instructions, the era reason, errors, logs, notifications,
// frames, noise) is made from those bytes, so no field needs a scrub call
// of its own, and one added later is covered too. What is scrubbed here
// besides is the runtime's own text: frames we send (a person may type a
// secret into arguments) and the HTTP exchanges of recordings.
// A nil *redactor scrubs nothing.
type redactor struct{ sc *config.Scrubber }

func newRedactor(s config.Server) *redactor { return &redactor{sc: s.Scrubber()} }

func (r *redactor) scrubber() *config.Scrubber {
	if r == nil {
		return nil
	}
	return r.sc
}

func (r *redactor) bytes(b []byte) []byte { return r.scrubber().Bytes(b) }
func (r *redactor) str(s string) string   { return r.scrubber().String(s) }

// reader is the intake of a byte stream from the server.
func (r *redactor) reader(rd io.Reader) io.Reader { return r.scrubber().Reader(rd) }

// transport is the intake of a remote server: every response body base
// returns is read through the scrubber before anything parses it (the
// era probe, the message stream, SSE, the body an error quotes).
func (r *redactor) transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &scrubTransport{base: base, r: r}
}

type scrubTransport struct {
	base http.RoundTripper
	r    *redactor
}

// RoundTrip implements http.RoundTripper.
func (t *scrubTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = scrubbedBody{Reader: t.r.reader(resp.Body), Closer: resp.Body}
	return resp, nil
}

type scrubbedBody struct {
	io.Reader
	io.Closer
}

// MergeLeaks adds to have the places in more it does not name yet, in
// order: every listing of a server is scanned (leaks), and a place found
// again is one leak, not two. The checker gathers its own listings' leaks
// with it too.
func MergeLeaks(have []string, more ...string) []string {
	for _, l := range more {
		if !slices.Contains(have, l) {
			have = append(have, l)
		}
	}
	return have
}

// leaks says where a listed capability carried a secret, which the intake
// replaced with config.RedactedValue: a server that puts a credential into
// a tool description leaks it to every model that reads the description.
// (A server that writes the mark itself is reported too; none does.)
func leaks(in lists) []string {
	var out []string
	mark := func(where, s string) {
		if strings.Contains(s, config.RedactedValue) {
			out = append(out, where)
		}
	}
	markRaw := func(where string, m json.RawMessage) {
		if bytes.Contains(m, []byte(config.RedactedValue)) {
			out = append(out, where)
		}
	}
	for _, d := range in.Dropped {
		mark("dropped tool name", d.Name)
	}
	for _, t := range in.Tools {
		where := "tool " + t.ServerTool
		mark(where+" name", t.ServerTool)
		mark(where+" title", t.Title)
		mark(where+" description", t.Description)
		markRaw(where+" inputSchema", t.InputSchema)
		markRaw(where+" outputSchema", t.OutputSchema)
	}
	for _, p := range in.Prompts {
		mark("prompt "+p.Name+" description", p.Description)
	}
	for _, res := range in.Resources {
		mark("resource "+res.URI+" description", res.Description)
	}
	for _, tpl := range in.Templates {
		mark("resource template "+tpl.URITemplate+" description", tpl.Description)
	}
	return out
}
