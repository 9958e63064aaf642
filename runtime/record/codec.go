package record

import (
	stdjson "encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
)

// The codec is encoding/json v2 (github.com/go-json-experiment/json) over
// the runtime's own types, with the few representations that matter for a
// file people read and scrub decided here, in one place, rather than on
// the runtime's types:
//   - states, frame directions and frame kinds are written by name, so a
//     renumbered enum cannot change what an old file means;
//   - durations are integer nanoseconds;
//   - a frame's raw bytes are embedded as JSON when they are JSON (so the
//     scrubber sees secrets as text, never base64), else as text;
//   - zero fields are omitted: absent means zero;
//   - an error (config.Server.Invalid) is written as configuration
//     diagnostics and read back as config.Errors (invalid.go).

// frameJSON is how a jsonrpc.Frame is written.
type frameJSON struct {
	Dir     jsonrpc.Direction
	Time    time.Time
	Kind    jsonrpc.FrameKind
	Method  string
	ID      string
	Size    int
	Raw     jsontext.Value `json:",omitzero"`
	RawText string         // Raw when it is not JSON (cut at TraceRawLimit)
}

// codecOptions are the encoding and decoding options of the codec, built
// on first use rather than in package init, which every command pays. (It
// is set in init because the options refer back to it.)
var codecOptions func() (encode, decode json.Options)

func init() { codecOptions = sync.OnceValues(buildCodecOptions) }

func buildCodecOptions() (encode, decode json.Options) {
	marshalers := json.JoinMarshalers(
		json.MarshalFunc(func(s runtime.State) ([]byte, error) { return strconv.AppendQuote(nil, s.String()), nil }),
		json.MarshalFunc(func(d jsonrpc.Direction) ([]byte, error) { return strconv.AppendQuote(nil, d.String()), nil }),
		json.MarshalFunc(func(k jsonrpc.FrameKind) ([]byte, error) { return strconv.AppendQuote(nil, k.String()), nil }),
		json.MarshalFunc(func(d time.Duration) ([]byte, error) { return strconv.AppendInt(nil, int64(d), 10), nil }),
		json.MarshalFunc(func(m stdjson.RawMessage) ([]byte, error) { return rawOrText(m), nil }),
		json.MarshalToFunc(func(enc *jsontext.Encoder, f jsonrpc.Frame) error {
			fj := frameJSON{Dir: f.Dir, Time: f.Time, Kind: f.Kind, Method: f.Method, ID: f.ID, Size: f.Size}
			if stdjson.Valid(f.Raw) {
				fj.Raw = jsontext.Value(f.Raw)
			} else {
				fj.RawText = textOf(f.Raw)
			}
			return json.MarshalEncode(enc, fj)
		}),
		json.MarshalToFunc(marshalInvalid),
	)
	unmarshalers := json.JoinUnmarshalers(
		json.UnmarshalFunc(func(b []byte, s *runtime.State) error {
			if byName(b, s, stateNames()) == nil {
				return nil
			}
			return byName(b, s, stateWords()) // recorded before states were identifiers ("needs login")
		}),
		json.UnmarshalFunc(func(b []byte, d *jsonrpc.Direction) error { return byName(b, d, dirNames()) }),
		json.UnmarshalFunc(func(b []byte, k *jsonrpc.FrameKind) error { return byName(b, k, frameKindNames()) }),
		json.UnmarshalFunc(func(b []byte, d *time.Duration) error {
			n, err := strconv.ParseInt(string(b), 10, 64)
			*d = time.Duration(n)
			return err
		}),
		json.UnmarshalFunc(func(b []byte, m *stdjson.RawMessage) error {
			*m = append((*m)[:0], b...)
			return nil
		}),
		json.UnmarshalFromFunc(func(dec *jsontext.Decoder, f *jsonrpc.Frame) error {
			var fj frameJSON
			if err := json.UnmarshalDecode(dec, &fj); err != nil {
				return err
			}
			*f = jsonrpc.Frame{Dir: fj.Dir, Time: fj.Time, Kind: fj.Kind, Method: fj.Method, ID: fj.ID, Size: fj.Size}
			if len(fj.Raw) > 0 {
				f.Raw = []byte(fj.Raw)
			} else if fj.RawText != "" {
				f.Raw = []byte(fj.RawText)
			}
			return nil
		}),
		json.UnmarshalFunc(unmarshalInvalid),
	)
	common := json.JoinOptions(json.OmitZeroStructFields(true), json.FormatNilSliceAsNull(true), json.FormatNilMapAsNull(true))
	return json.JoinOptions(common, json.WithMarshalers(marshalers), jsontext.AllowInvalidUTF8(true)),
		json.JoinOptions(common, json.WithUnmarshalers(unmarshalers))
}

func encodeOpts() json.Options { e, _ := codecOptions(); return e }
func decodeOpts() json.Options { _, d := codecOptions(); return d }

// rawOrText is a server's raw JSON as written, or, when it is not valid
// JSON, the same bytes as a JSON string: a recording line is always valid.
func rawOrText(m []byte) []byte {
	if len(m) == 0 {
		return []byte("null")
	}
	if stdjson.Valid(m) {
		return m
	}
	return strconv.AppendQuote(nil, textOf(m))
}

func textOf(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string([]rune(string(b))) // invalid bytes become U+FFFD
}

// The names each enum is written with, by value, from the types' own
// String methods: what the runtime calls a state is what the file says.
// Listed on first decode, not in package init: every mcpdeck start paid
// for them (and for the panic FrameKind's String ends its list with).
var (
	stateNames     = sync.OnceValue(func() []string { return enumNames(func(i int) string { return runtime.State(i).Name() }) })
	stateWords     = sync.OnceValue(func() []string { return enumNames(func(i int) string { return runtime.State(i).String() }) })
	dirNames       = sync.OnceValue(func() []string { return enumNames(func(i int) string { return jsonrpc.Direction(i).String() }) })
	frameKindNames = sync.OnceValue(func() []string {
		return enumNames(func(i int) string { return safeString(func() string { return jsonrpc.FrameKind(i).String() }) })
	})
)

// enumNames lists name(i) for i = 0, 1, … until a name repeats or looks
// like a fallback ("State(9)"); enums are small.
func enumNames(name func(int) string) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; i < 64; i++ {
		n := name(i)
		if n == "" || seen[n] || n[len(n)-1] == ')' {
			break
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

// safeString returns "" where an enum's String panics past its last value.
func safeString(f func() string) (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	return f()
}

// byName decodes an enum written by name (or, leniently, by number).
func byName[T ~int](b []byte, v *T, names []string) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		n, nerr := strconv.Atoi(string(b))
		if nerr != nil {
			return fmt.Errorf("decoding %T: %w", *v, err)
		}
		*v = T(n)
		return nil
	}
	for i, n := range names {
		if n == s {
			*v = T(i)
			return nil
		}
	}
	return fmt.Errorf("decoding %T: unknown name %q", *v, s)
}

// encodeEvent appends e's JSON to b.
func encodeEvent(b []byte, e runtime.Event) ([]byte, error) {
	if out, ok := fastEncode(b, e); ok {
		return out, nil
	}
	return encodeGeneric(b, e)
}

// encodeGeneric is the reflective encoding every kind has.
func encodeGeneric(b []byte, e runtime.Event) ([]byte, error) {
	out, err := json.Marshal(e, encodeOpts())
	if err != nil {
		return b, err
	}
	return append(b, out...), nil
}

// decodeEvent decodes the event of kind from raw; an unknown kind, or one
// that does not decode, becomes an Unknown holding raw.
func decodeEvent(kind string, raw []byte) (runtime.Event, error) {
	typ, ok := registry().byName[kind]
	if !ok {
		return unknown(kind, raw), nil
	}
	v := reflect.New(typ)
	if err := json.Unmarshal(raw, v.Interface(), decodeOpts()); err != nil {
		return unknown(kind, raw), fmt.Errorf("decoding a %s event: %w", kind, err)
	}
	return v.Elem().Interface().(runtime.Event), nil
}

func unknown(kind string, raw []byte) Unknown {
	u := Unknown{Kind: kind, Raw: append(stdjson.RawMessage(nil), raw...)}
	_ = json.Unmarshal(raw, &u.EventHeader, decodeOpts(), json.RejectUnknownMembers(false))
	return u
}

// marshal encodes any value with the recording's representations (the
// header, HAR and --json output use it too).
func marshal(v any) ([]byte, error) { return json.Marshal(v, encodeOpts()) }

// unmarshal decodes with the recording's representations.
func unmarshal(b []byte, v any) error { return json.Unmarshal(b, v, decodeOpts()) }
