package runtime

import (
	"bytes"
	"encoding/json"

	"mcpdeck/config"
)

// redactor scrubs a server's configured secrets out of everything the
// runtime publishes: stderr, noise, logs, frames, errors, listed
// capabilities. The rule for what is a secret is config's.
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
	if r.scrubber().Empty() {
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
	out.Listed, out.headers = in.Listed, in.headers
	for _, d := range in.Dropped {
		out.Dropped = append(out.Dropped, DroppedTool{Name: scrub("dropped tool name", d.Name), Reason: r.str(d.Reason)})
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
	for _, tpl := range in.Templates {
		tpl.Description = scrub("resource template "+tpl.URITemplate+" description", tpl.Description)
		out.Templates = append(out.Templates, tpl)
	}
	return out, leaks
}
