package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// dispatch delivers queued notifications in order until the queue closes.
func (c *Conn) dispatch() {
	defer close(c.dispatchDone)
	var batch []Notification
	for {
		var ok bool
		batch, ok = c.notes.popAll(batch[:0])
		for _, n := range batch {
			if c.opts.OnNotification != nil {
				c.opts.OnNotification(n)
			}
			c.delivered.Add(1)
			c.passed(n.seq)
		}
		if !ok {
			return
		}
	}
}

func (c *Conn) anomaly(kind AnomalyKind, id, detail string, raw []byte) {
	if kind == AnomalyNoise || kind == AnomalyInvalid {
		c.noise.Add(1)
	}
	remember := kind == AnomalyUnknownResponse || kind == AnomalyNullID || kind == AnomalyUndecodable || kind == AnomalyInvalid
	if c.opts.OnAnomaly == nil && !remember {
		return
	}
	if len(raw) > NoiseLimit {
		raw = raw[:NoiseLimit]
	}
	a := Anomaly{Kind: kind, Time: time.Now(), ID: id, Detail: detail, Raw: append([]byte(nil), raw...)}
	if remember {
		c.recent.add(a)
	}
	if c.opts.OnAnomaly != nil {
		c.opts.OnAnomaly(a)
	}
}

// onRecv runs on the read loop after each message is decoded (and, for
// responses, matched against the library's pending table).
func (c *Conn) onRecv(req *jsonrpc2.Request, resp *jsonrpc2.Response) {
	c.framesIn.Add(1)
	if resp != nil {
		var num uint64
		known := req != nil
		if !resp.ID.IsString {
			num = resp.ID.Num
		}
		// A response to an id we cancelled is late, whether or not the
		// library still had it pending.
		c.mu.Lock()
		_, wasCancelled := c.cancelled[num]
		delete(c.cancelled, num)
		c.mu.Unlock()
		switch {
		case wasCancelled && !resp.ID.IsString:
			c.late.Add(1)
			c.anomaly(AnomalyLateResponse, resp.ID.String(), "response arrived after the request was cancelled; dropped", nil)
		case !known:
			c.unknown.Add(1)
			c.anomaly(AnomalyUnknownResponse, resp.ID.String(), "no request with this id is outstanding", c.lastRead)
		}
	}
	if c.opts.Trace != nil {
		c.opts.Trace(frameOf(In, c.lastRead, req, resp))
	}
}

func frameOf(dir Direction, raw []byte, req *jsonrpc2.Request, resp *jsonrpc2.Response) Frame {
	f := Frame{Dir: dir, Time: time.Now(), Size: len(raw)}
	if len(raw) > TraceRawLimit {
		raw = raw[:TraceRawLimit]
	}
	f.Raw = append([]byte(nil), raw...)
	switch {
	case resp != nil:
		f.Kind = KindResult
		if resp.Error != nil {
			f.Kind = KindError
		}
		f.ID = resp.ID.String()
		if req != nil {
			f.Method = req.Method
		}
	case req != nil:
		f.Method = req.Method
		f.Kind = KindRequest
		if req.Notif {
			f.Kind = KindNotification
		} else {
			f.ID = req.ID.String()
		}
	}
	return f
}

// objectStream adapts a frame Stream to the library's ObjectStream.
type objectStream Conn

func (s *objectStream) ReadObject(v any) error {
	c := (*Conn)(s)
	for {
		frame, err := c.stream.Read()
		if err != nil {
			c.setCause(err)
			c.notes.close()
			close(c.readDone)
			return err
		}
		// The envelope is read once, here, and every taker sorts the
		// frame by it; what none takes goes the library's way.
		if env, err := ReadEnvelope(frame); err == nil &&
			(c.takeMessage(frame, env) || c.takeResponse(frame, env) || c.takeNullID(frame, env)) {
			continue
		}
		if err := json.Unmarshal(frame, v); err != nil {
			// A failed decode may leave a half-filled message behind.
			reflect.ValueOf(v).Elem().SetZero()
			if c.takeUndecodable(frame, err, v) {
				return nil
			}
			kind := AnomalyInvalid
			if first := firstByte(frame); first != '{' && first != '[' {
				kind = AnomalyNoise
			}
			c.anomaly(kind, "", err.Error(), frame)
			continue
		}
		if c.opts.Trace != nil || c.opts.OnAnomaly != nil {
			c.lastRead = frame
		}
		return nil
	}
}

// takeMessage takes a notification or a request off the stream before
// the library's decoder, which turns every message into a map and
// re-marshals its params (at a server's flooding rate that was three
// quarters of intake time), and hands it to the connection's Handler as
// the library would. It reports whether it took the frame; env is the
// frame's envelope, read once by ReadObject.
func (c *Conn) takeMessage(frame []byte, env Envelope) bool {
	if env.Method == nil || env.Result != nil || env.Error != nil {
		return false // not a notification nor a request; the library decides what it is
	}
	method, ok := env.MethodName()
	if !ok || !json.Valid(frame) {
		return false // the library reports what is wrong with it
	}
	req := &jsonrpc2.Request{Method: method, Notif: env.ID == nil}
	if !req.Notif && json.Unmarshal(env.ID, &req.ID) != nil {
		return false
	}
	// The frame is valid until the next read: the params are copied.
	if env.Params != nil {
		params := append(json.RawMessage(nil), env.Params...)
		req.Params = &params
	}
	c.framesIn.Add(1)
	if c.opts.Trace != nil {
		c.opts.Trace(frameOf(In, frame, req, nil))
	}
	(*rpcHandler)(c).Handle(context.Background(), nil, req)
	return true
}

// takeResponse matches a response frame against the requests we sent and
// hands its result to the waiting caller, bypassing the library's decoder.
// It reports whether frame was a response with a numeric id (ours); other
// frames, and responses the library must see (none: the library sends no
// requests of its own), go the library's way.
func (c *Conn) takeResponse(frame []byte, m Envelope) bool {
	if !m.IsResponse() {
		return false // not a response: the library decides (and reports it)
	}
	var wireErr *Error
	if m.hasError() {
		var ok bool
		if wireErr, ok = decodeError(m.Error); !ok {
			return false // a malformed error object: the library reports it
		}
	}
	id, err := strconv.ParseUint(string(m.ID), 10, 64)
	if err != nil {
		return false // a string or null id: not one of ours, and the library reports it
	}
	c.framesIn.Add(1)
	c.mu.Lock()
	oc := c.outstanding[id]
	_, wasCancelled := c.cancelled[id]
	delete(c.cancelled, id)
	if oc != nil && !wasCancelled {
		delete(c.outstanding, id) // answered: a second response with this id is unknown
	}
	c.mu.Unlock()
	if c.opts.Trace != nil {
		f := Frame{Dir: In, Time: time.Now(), Kind: KindResult, ID: FormatID(id), Size: len(frame)}
		if wireErr != nil {
			f.Kind = KindError
		}
		if oc != nil {
			f.Method = oc.Method
		}
		raw := frame
		if len(raw) > TraceRawLimit {
			raw = raw[:TraceRawLimit]
		}
		f.Raw = append([]byte(nil), raw...)
		c.opts.Trace(f)
	}
	switch {
	case wasCancelled:
		c.late.Add(1)
		c.anomaly(AnomalyLateResponse, FormatID(id), "response arrived after the request was cancelled; dropped", nil)
	case oc == nil:
		c.unknown.Add(1)
		c.anomaly(AnomalyUnknownResponse, FormatID(id), "no request with this id is outstanding", frame)
	case m.Deep:
		// Nested beyond what any decoder here reads: fail the request at
		// once, with the decoder's own words for it.
		derr := json.Unmarshal(m.Result, new(json.RawMessage))
		if derr == nil {
			derr = fmt.Errorf("nested deeper than %d levels", maxDepth)
		}
		c.anomaly(AnomalyUndecodable, FormatID(id), derr.Error(), frame)
		oc.resp <- response{undecodable: &UndecodableError{ID: id, Size: len(frame), Err: derr}, after: c.read}
	case wireErr != nil:
		oc.resp <- response{err: wireErr, after: c.read}
	default:
		// The frame is valid until the next read: the caller gets a copy.
		oc.resp <- response{result: append(json.RawMessage(nil), m.Result...), after: c.read}
	}
	return true
}

// takeNullID drops an error response whose id is null, reporting it as an
// anomaly: the library would read the null as id 0, and it answers no
// request (the peer could not read one's id). Requests that then time out
// name it.
func (c *Conn) takeNullID(frame []byte, env Envelope) bool {
	if !env.NullID() || !env.IsResponse() {
		return false
	}
	c.framesIn.Add(1)
	detail := "no request can match it"
	var e ErrorObject
	if env.hasError() && json.Unmarshal(env.Error, &e) == nil {
		detail = fmt.Sprintf("%s (code %d)", e.Message, e.Code)
	}
	c.unknown.Add(1)
	c.anomaly(AnomalyNullID, "null", detail, frame)
	if c.opts.Trace != nil {
		c.opts.Trace(frameOf(In, frame, nil, &jsonrpc2.Response{ID: jsonrpc2.ID{Str: "null", IsString: true}, Error: &jsonrpc2.Error{Message: detail}}))
	}
	return true
}

// takeUndecodable handles a frame the decoder rejected that is shaped like
// a response to an outstanding request (typically a result nested deeper
// than encoding/json's 10,000 levels): rather than skipping it as noise,
// which left the request to hang until its timeout, it hands the library
// a stand-in error response for that id, and Call returns an
// *UndecodableError. It reports whether it did.
func (c *Conn) takeUndecodable(frame []byte, decodeErr error, v any) bool {
	env, ok := scanMembers(frame)
	if !ok || env.Method != nil || env.ID == nil || (env.Result == nil && env.Error == nil) {
		return false // not shaped like a response
	}
	id, err := strconv.ParseUint(string(env.ID), 10, 64)
	if err != nil {
		return false
	}
	c.mu.Lock()
	_, waiting := c.outstanding[id]
	if waiting {
		c.undecodable[id] = &UndecodableError{ID: id, Size: len(frame), Err: decodeErr}
	}
	c.mu.Unlock()
	if !waiting {
		return false
	}
	c.anomaly(AnomalyUndecodable, FormatID(id), decodeErr.Error(), frame)
	stand := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":%d,"message":"undecodable response"}}`, id, CodeParseError)
	if json.Unmarshal([]byte(stand), v) != nil {
		return false
	}
	c.lastRead = frame
	return true
}

func firstByte(b []byte) byte {
	for _, ch := range b {
		if ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n' {
			return ch
		}
	}
	return 0
}

// WriteObject is the library's way out, there for its ObjectStream
// interface: the connection calls none of the library's writers (Call,
// Notify, Reply) and the library writes nothing on its own, so nothing
// comes this way. Should a later version write, its frame is a message
// like any other and takes its turn.
func (s *objectStream) WriteObject(v any) error {
	c := (*Conn)(s)
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	msg := Message{Kind: KindNotification, Frame: b}
	if env, err := ReadEnvelope(b); err == nil {
		msg.Method, _ = env.MethodName()
		switch {
		case env.IsRequest():
			msg.Kind, msg.ID = KindRequest, env.IDKey()
		case env.IsResponse() && env.hasError():
			msg.Kind, msg.ID = KindError, env.IDKey()
		case env.IsResponse():
			msg.Kind, msg.ID = KindResult, env.IDKey()
		}
	}
	return c.send(context.Background(), msg)
}

func (s *objectStream) Close() error { return (*Conn)(s).stream.Close() }
