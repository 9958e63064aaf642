package record

import (
	"math"
	"strconv"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Object appends a JSON object's members to a byte slice by hand, leaving
// out zero values as the generic codec's OmitZeroStructFields does: the
// recorder's hot kinds (fast.go) and watch --json's lines are written
// with it, reflection costing more than the rest of their path. Keys are
// written as given (plain ASCII of ours); strings are quoted with
// invalid UTF-8 replaced; raw values are embedded as they are.
type Object struct {
	b []byte
	n int
}

// NewObject starts an object on b (appending '{').
func NewObject(b []byte) Object { return Object{b: append(b, '{')} }

// End closes the object and returns the bytes.
func (o *Object) End() []byte { return append(o.b, '}') }

// Key starts a member.
func (o *Object) Key(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

// Str writes a string member, unless empty.
func (o *Object) Str(k, v string) {
	if v == "" {
		return
	}
	o.Key(k)
	o.b, _ = jsontext.AppendQuote(o.b, v) // invalid UTF-8 becomes U+FFFD
}

// StrAlways writes a string member, empty included.
func (o *Object) StrAlways(k, v string) {
	o.Key(k)
	o.b, _ = jsontext.AppendQuote(o.b, v)
}

// Name writes a string member that is one of our own names (a kind, an
// enum value), unless empty: plain ASCII is written without the general
// quoting, anything else quoted as Str does.
func (o *Object) Name(k, v string) {
	if v == "" {
		return
	}
	o.Key(k)
	o.b = appendName(o.b, v)
}

// Time writes a time member in RFC 3339 with nanoseconds, unless zero.
func (o *Object) Time(k string, t time.Time) {
	if t.IsZero() {
		return
	}
	o.Key(k)
	o.b = append(o.b, '"')
	o.b = t.AppendFormat(o.b, time.RFC3339Nano)
	o.b = append(o.b, '"')
}

// Int writes an integer member, unless 0.
func (o *Object) Int(k string, v int64) {
	if v == 0 {
		return
	}
	o.Key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

// Uint writes an unsigned integer member, unless 0.
func (o *Object) Uint(k string, v uint64) {
	if v == 0 {
		return
	}
	o.Key(k)
	o.b = strconv.AppendUint(o.b, v, 10)
}

// Float writes a number member, unless 0 (FloatAlways writes 0 too). It
// formats as JSON numbers conventionally are (and as the generic
// codec does): shortest round-trip digits, exponent form only for very
// small or very large magnitudes.
func (o *Object) Float(k string, f float64) {
	if f == 0 {
		return
	}
	o.FloatAlways(k, f)
}

// FloatAlways writes a number member, 0 included.
func (o *Object) FloatAlways(k string, f float64) {
	o.Key(k)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		o.b = append(o.b, "null"...)
		return
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
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

// Raw embeds v, valid JSON, as a member: nil leaves it out, empty is null.
func (o *Object) Raw(k string, v []byte) {
	if v == nil {
		return
	}
	o.Key(k)
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
