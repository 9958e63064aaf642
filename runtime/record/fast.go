package record

import (
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
	o := Object{b: append(b, '{')}
	switch e := e.(type) {
	case runtime.TrafficFrame:
		f := e.Frame
		if f.Size > jsonrpc.TraceRawLimit || !looksJSON(f.Raw) {
			return b, false
		}
		header(&o, e.EventHeader)
		o.Key("Frame")
		o.b = append(o.b, `{"Dir":`...)
		o.b = appendName(o.b, f.Dir.String())
		in := Object{b: o.b, n: 1}
		in.Time("Time", f.Time)
		in.b = append(in.b, `,"Kind":`...)
		in.b = appendName(in.b, f.Kind.String())
		in.Str("Method", f.Method)
		in.Str("ID", f.ID)
		in.Int("Size", int64(f.Size))
		in.Raw("Raw", f.Raw)
		o.b = append(in.b, '}')
	case runtime.LogMessage:
		header(&o, e.EventHeader)
		o.Str("Level", e.Level)
		o.Str("Logger", e.Logger)
		o.Raw("Data", e.Data)
	case runtime.NotificationReceived:
		header(&o, e.EventHeader)
		o.Str("Method", e.Method)
		o.Raw("Params", e.Params)
	case runtime.Progress:
		header(&o, e.EventHeader)
		o.Uint("RequestID", e.RequestID)
		o.Str("Token", e.Token)
		o.Float("Progress", e.Progress)
		o.Float("Total", e.Total)
		o.Str("Message", e.Message)
		o.Str("Tool", e.Tool)
		o.Str("Late", e.Late)
	case runtime.StderrLine:
		header(&o, e.EventHeader)
		o.Str("Line", e.Line)
	case runtime.RequestStarted:
		header(&o, e.EventHeader)
		o.Uint("ID", e.ID)
		o.Str("Method", e.Method)
		o.Str("Tool", e.Tool)
		o.Int("Round", int64(e.Round))
		o.Uint("FirstID", e.FirstID)
	case runtime.RequestFinished:
		if len(e.Inputs) > 0 {
			return b, false // rare (input_required): the generic codec writes the list
		}
		header(&o, e.EventHeader)
		o.Uint("ID", e.ID)
		o.Str("Method", e.Method)
		o.Str("Tool", e.Tool)
		o.Int("Duration", int64(e.Duration))
		if e.IsError {
			o.Key("IsError")
			o.b = append(o.b, "true"...)
		}
		o.Str("Err", e.Err)
		o.Int("Round", int64(e.Round))
		o.Uint("FirstID", e.FirstID)
		o.Str("Continues", e.Continues)
	default:
		return b, false
	}
	return append(o.b, '}'), true
}

func looksJSON(raw []byte) bool {
	return len(raw) > 1 && (raw[0] == '{' && raw[len(raw)-1] == '}' || raw[0] == '[' && raw[len(raw)-1] == ']')
}

// header writes an event's header members.
func header(o *Object, h runtime.EventHeader) {
	o.Time("Time", h.Time)
	o.Str("Server", h.Server)
}
