package runtime

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"mcpdeck/config"
)

// minSecretLen is the shortest configured value treated as a secret in
// free text: shorter env values ("1", "dev") are rarely credentials and
// scrubbing them would mangle ordinary output.
const minSecretLen = 6

// redactor scrubs a server's configured secrets (env and header values)
// out of everything the runtime publishes: stderr, noise, logs, frames.
type redactor struct {
	secrets [][]byte // longest first, so a secret containing another goes whole
}

func newRedactor(s config.Server) *redactor {
	r := &redactor{}
	for _, v := range s.Secrets() {
		if len(v) >= minSecretLen {
			r.secrets = append(r.secrets, []byte(v))
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

var redacted = []byte(config.RedactedValue)

func (r *redactor) bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	for _, s := range r.secrets {
		if bytes.Contains(b, s) {
			b = bytes.ReplaceAll(b, s, redacted)
		}
	}
	return b
}

func (r *redactor) str(s string) string {
	if r == nil || len(r.secrets) == 0 {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, string(sec)) {
			s = strings.ReplaceAll(s, string(sec), config.RedactedValue)
		}
	}
	return s
}

func (r *redactor) strs(ss []string) []string {
	for i, s := range ss {
		ss[i] = r.str(s)
	}
	return ss
}

// raw scrubs a JSON value; the result stays valid JSON because the
// replacement contains no quote or backslash.
func (r *redactor) raw(m json.RawMessage) json.RawMessage {
	return json.RawMessage(r.bytes(m))
}

// lists scrubs secrets out of listed capabilities and reports where it
// found any: a server that puts a credential into a tool description leaks
// it to every model that reads the description.
func (r *redactor) lists(in lists) (out lists, leaks []string) {
	if r == nil || len(r.secrets) == 0 {
		return in, nil
	}
	scrub := func(where, s string) string {
		if t := r.str(s); t != s {
			leaks = append(leaks, where)
			return t
		}
		return s
	}
	scrubRaw := func(where string, m json.RawMessage) json.RawMessage {
		if t := r.bytes(append([]byte(nil), m...)); !bytes.Equal(t, m) {
			leaks = append(leaks, where)
			return t
		}
		return m
	}
	for _, t := range in.Tools {
		where := "tool " + t.ServerTool
		t.ServerTool = scrub(where+" name", t.ServerTool)
		t.Title = scrub(where+" title", t.Title)
		t.Description = scrub(where+" description", t.Description)
		t.InputSchema = scrubRaw(where+" inputSchema", t.InputSchema)
		t.OutputSchema = scrubRaw(where+" outputSchema", t.OutputSchema)
		out.Tools = append(out.Tools, t)
	}
	for _, p := range in.Prompts {
		p.Description = scrub("prompt "+p.Name+" description", p.Description)
		out.Prompts = append(out.Prompts, p)
	}
	for _, res := range in.Resources {
		res.Description = scrub("resource "+res.URI+" description", res.Description)
		out.Resources = append(out.Resources, res)
	}
	return out, leaks
}
