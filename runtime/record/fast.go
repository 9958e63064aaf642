package record

import (
	"math"
	"strconv"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
)

// fastEncode writes the kinds a flooding server produces (frames, logs,
// progress, notifications, stderr, request events) by hand, byte for byte
// as the generic codec does (TestFastEncodingMatchesGeneric holds them to
// it): reflection cost a recorder most of its time, and recording must
// stay a small fraction of notification intake. Raw JSON from the runtime
// is embedded as is: the connection parsed it (or marshalled it) already.
// It reports false for any other kind.
func fastEncode(b []byte, e runtime.Event) ([]byte, bool) {
	o := obj{b: append(b, '{')}
	switch e := e.(type) {
	case runtime.TrafficFrame:
		f := e.Frame
		if f.Size > jsonrpc.TraceRawLimit || !looksJSON(f.Raw) {
			return b, false
		}
		o.header(e.EventHeader)
		o.key("Frame")
		o.b = append(o.b, `{"Dir":`...)
		o.b = appendName(o.b, f.Dir.String())
		in := obj{b: o.b, n: 1}
		in.time("Time", f.Time)
		in.b = append(in.b, `,"Kind":`...)
		in.b = appendName(in.b, f.Kind.String())
		in.str("Method", f.Method)
		in.str("ID", f.ID)
		in.int("Size", int64(f.Size))
		in.raw("Raw", f.Raw)
		o.b = append(in.b, '}')
	case runtime.LogMessage:
		o.header(e.EventHeader)
		o.str("Level", e.Level)
		o.str("Logger", e.Logger)
		o.raw("Data", e.Data)
	case runtime.NotificationReceived:
		o.header(e.EventHeader)
		o.str("Method", e.Method)
		o.raw("Params", e.Params)
	case runtime.Progress:
		o.header(e.EventHeader)
		o.uint("RequestID", e.RequestID)
		o.str("Token", e.Token)
		o.float("Progress", e.Progress)
		o.float("Total", e.Total)
		o.str("Message", e.Message)
	case runtime.StderrLine:
		o.header(e.EventHeader)
		o.str("Line", e.Line)
	case runtime.RequestStarted:
		o.header(e.EventHeader)
		o.uint("ID", e.ID)
		o.str("Method", e.Method)
		o.str("Tool", e.Tool)
		o.int("Round", int64(e.Round))
		o.uint("FirstID", e.FirstID)
	case runtime.RequestFinished:
		if len(e.Inputs) > 0 {
			return b, false // rare (input_required): the generic codec writes the list
		}
		o.header(e.EventHeader)
		o.uint("ID", e.ID)
		o.str("Method", e.Method)
		o.str("Tool", e.Tool)
		o.int("Duration", int64(e.Duration))
		if e.IsError {
			o.key("IsError")
			o.b = append(o.b, "true"...)
		}
		o.str("Err", e.Err)
		o.int("Round", int64(e.Round))
		o.uint("FirstID", e.FirstID)
		o.str("Continues", e.Continues)
	default:
		return b, false
	}
	return append(o.b, '}'), true
}

func looksJSON(raw []byte) bool {
	return len(raw) > 1 && (raw[0] == '{' && raw[len(raw)-1] == '}' || raw[0] == '[' && raw[len(raw)-1] == ']')
}

// obj appends an object's members, leaving out zero values as the
// generic codec's OmitZeroStructFields does.
type obj struct {
	b []byte
	n int
}

func (o *obj) key(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

func (o *obj) header(h runtime.EventHeader) {
	o.time("Time", h.Time)
	o.str("Server", h.Server)
}

func (o *obj) str(k, v string) {
	if v == "" {
		return
	}
	o.key(k)
	o.b, _ = jsontext.AppendQuote(o.b, v) // invalid UTF-8 becomes U+FFFD
}

func (o *obj) time(k string, t time.Time) {
	if t.IsZero() {
		return
	}
	o.key(k)
	o.b = append(o.b, '"')
	o.b = t.AppendFormat(o.b, time.RFC3339Nano)
	o.b = append(o.b, '"')
}

func (o *obj) int(k string, v int64) {
	if v == 0 {
		return
	}
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *obj) uint(k string, v uint64) {
	if v == 0 {
		return
	}
	o.key(k)
	o.b = strconv.AppendUint(o.b, v, 10)
}

// float formats as JSON numbers conventionally are (and as the generic
// codec does): shortest round-trip digits, exponent form only for very
// small or very large magnitudes.
func (o *obj) float(k string, f float64) {
	if f == 0 {
		return
	}
	o.key(k)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		o.b = append(o.b, "null"...)
		return
	}
	format := byte('f')
	if a := math.Abs(f); a < 1e-6 || a >= 1e21 {
		format = 'e'
	}
	o.b = strconv.AppendFloat(o.b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as JavaScript and encoding/json write it.
		if n := len(o.b); n >= 4 && o.b[n-4] == 'e' && o.b[n-3] == '-' && o.b[n-2] == '0' {
			o.b[n-2] = o.b[n-1]
			o.b = o.b[:n-1]
		}
	}
}

func (o *obj) raw(k string, v []byte) {
	if v == nil {
		return
	}
	o.key(k)
	if len(v) == 0 {
		o.b = append(o.b, "null"...)
		return
	}
	o.b = append(o.b, v...)
}

// appendName quotes a name of ours (a kind, an enum value, an era): plain
// ASCII needs no escaping, and skipping the general quoting is measurably
// faster at flood rates.
func appendName(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			b, _ = jsontext.AppendQuote(b, s)
			return b
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
