package record

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
)

// Replayable are the client requests `replay --against` sends again: the
// ones that ask a server for something and change nothing in the session
// itself (initialize, logging/setLevel and subscriptions are the
// runtime's own business and are not replayed).
var Replayable = []string{"tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list",
	"resources/read", "resources/templates/list", "completion/complete", "ping"}

// Exchange is one recorded client request and the answer it got.
type Exchange struct {
	Seq    uint64 // the request frame's line
	Server string
	Method string
	Tool   string             // for tools/call
	Params stdjson.RawMessage // as sent, without _meta (the runtime adds its own)
	// Answer is {"result": …} or {"error": {"code", "message"}}: the
	// response without its id. Nil when the recording has no answer
	// (cancelled, or the session ended first).
	Answer stdjson.RawMessage
}

// Exchanges pairs the recorded client requests of the Replayable methods
// with their answers, in the order they were sent. server, if not empty,
// keeps that server's only.
func Exchanges(rec *Recording, server string) []Exchange {
	replayable := map[string]bool{}
	for _, m := range Replayable {
		replayable[m] = true
	}
	var out []Exchange
	open := map[string]int{} // server + id → index in out
	for _, e := range rec.Entries {
		tf, ok := e.Event.(runtime.TrafficFrame)
		if !ok || (server != "" && tf.Server != server) {
			continue
		}
		f := tf.Frame
		key := tf.Server + "\x00" + f.ID
		switch {
		case f.Dir == jsonrpc.Out && f.Kind == jsonrpc.KindRequest && replayable[f.Method]:
			var fields map[string]stdjson.RawMessage
			if !paramsOf(f.Raw, &fields) {
				continue // cut at the trace limit: cannot be sent again
			}
			delete(fields, "_meta")
			params, _ := stdjson.Marshal(fields)
			x := Exchange{Seq: e.Seq, Server: tf.Server, Method: f.Method, Params: params}
			if f.Method == "tools/call" {
				_ = stdjson.Unmarshal(fields["name"], &x.Tool)
			}
			open[key] = len(out)
			out = append(out, x)
		case f.Dir == jsonrpc.In && (f.Kind == jsonrpc.KindResult || f.Kind == jsonrpc.KindError):
			i, ok := open[key]
			if !ok {
				continue
			}
			delete(open, key)
			out[i].Answer = answerOf(f.Raw)
		}
	}
	return out
}

// answerOf strips a response to what is compared: the result, or the
// error's code and message.
func answerOf(raw []byte) stdjson.RawMessage {
	var resp jsonrpc.Response[stdjson.RawMessage]
	if stdjson.Unmarshal(raw, &resp) != nil {
		return nil
	}
	if resp.Error != nil {
		return ErrorAnswer(resp.Error.Code, resp.Error.Message)
	}
	b, _ := stdjson.Marshal(map[string]stdjson.RawMessage{"result": resp.Result})
	return b
}

// ResultAnswer is a live result in the shape Exchange.Answer has.
func ResultAnswer(result stdjson.RawMessage) stdjson.RawMessage {
	if len(result) == 0 {
		result = stdjson.RawMessage("null")
	}
	b, _ := stdjson.Marshal(map[string]stdjson.RawMessage{"result": result})
	return b
}

// ErrorAnswer is a JSON-RPC error in the shape Exchange.Answer has.
func ErrorAnswer(code int64, message string) stdjson.RawMessage {
	b, _ := stdjson.Marshal(map[string]any{"error": map[string]any{"code": code, "message": message}})
	return b
}

// Difference is one place where a live answer differs from the recorded
// one. Path is a JSON pointer into the answer ("/result/content/0/text").
type Difference struct {
	Path     string
	Recorded string // compact JSON, or "(absent)"
	Live     string
}

func (d Difference) String() string {
	return fmt.Sprintf("%s: recorded %s, live %s", d.Path, d.Recorded, d.Live)
}

// Compare lists where live differs from recorded, leaving out the paths
// in ignore. An ignore path is a JSON pointer ("/result/content/0/text")
// or a dotted path ("result.content.0.text"), relative to the answer
// ({"result": …} or {"error": …}); "*" matches any one key or index.
func Compare(recorded, live stdjson.RawMessage, ignore []string) ([]Difference, error) {
	return CompareAnswers("", recorded, live, ignore)
}

// CompareAnswers is Compare for the answers to a request of method: the
// list of a list request (tools/list, prompts/list, resources/list,
// resources/templates/list) is compared by name (URI), its items
// addressed by it — /result/tools/get-sum/description — so a list in
// another order is no difference, and an item added is one. A text block
// that holds its result's structuredContent as JSON on both sides is
// compared through structuredContent (StructuredMirrors).
func CompareAnswers(method string, recorded, live stdjson.RawMessage, ignore []string) ([]Difference, error) {
	var a, b any
	if err := decodeNumbers(recorded, &a); err != nil {
		return nil, fmt.Errorf("decoding the recorded answer: %w", err)
	}
	if err := decodeNumbers(live, &b); err != nil {
		return nil, fmt.Errorf("decoding the live answer: %w", err)
	}
	markMirrors(a, b)
	var out []Difference
	diff(nil, keyedAnswer(method, a), keyedAnswer(method, b), parsePaths(ignore), &out)
	return out, nil
}

func decodeNumbers(raw []byte, v *any) error {
	if len(raw) == 0 {
		return nil
	}
	d := stdjson.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(v)
}

// ParsePath splits an ignore path into its segments (see Compare).
func ParsePath(p string) []string {
	if strings.HasPrefix(p, "/") {
		segs := strings.Split(p[1:], "/")
		for i, s := range segs {
			segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
		}
		return segs
	}
	return strings.Split(p, ".")
}

func ignored(path []string, patterns [][]string) bool {
	for _, p := range patterns {
		if len(p) > len(path) {
			continue
		}
		match := true
		for i, seg := range p {
			if seg != "*" && seg != path[i] {
				match = false
				break
			}
		}
		if match {
			return true // a pattern covers everything under it
		}
	}
	return false
}

func pointer(path []string) string {
	if len(path) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, s := range path {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func diff(path []string, a, b any, ignore [][]string, out *[]Difference) {
	if ignored(path, ignore) {
		return
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			p := append(append([]string(nil), path...), k)
			x, inA := av[k]
			y, inB := bv[k]
			switch {
			case inA && inB:
				diff(p, x, y, ignore, out)
			case !ignored(p, ignore):
				*out = append(*out, Difference{Path: pointer(p), Recorded: show(x, inA), Live: show(y, inB)})
			}
		}
		return
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		for i := 0; i < max(len(av), len(bv)); i++ {
			p := append(append([]string(nil), path...), strconv.Itoa(i))
			switch {
			case i < len(av) && i < len(bv):
				diff(p, av[i], bv[i], ignore, out)
			case !ignored(p, ignore):
				var x, y any
				if i < len(av) {
					x = av[i]
				}
				if i < len(bv) {
					y = bv[i]
				}
				*out = append(*out, Difference{Path: pointer(p), Recorded: show(x, i < len(av)), Live: show(y, i < len(bv))})
			}
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, Difference{Path: pointer(path), Recorded: show(a, true), Live: show(b, true)})
	}
}

// show renders a value for a difference, cut to a readable length.
func show(v any, present bool) string {
	if !present {
		return "(absent)"
	}
	b, _ := stdjson.Marshal(v)
	s := string(b)
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return printable(s)
}
