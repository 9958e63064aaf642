package check

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/proc"
)

// The items of the 2026-07-28 revision, checked when the server speaks the
// modern era. Each speaks to the server directly, on connections of its
// own (a fresh process on stdio, fresh HTTP connections), with hand-built
// requests the runtime would never send.
const (
	IDDiscover           = "discover"
	IDUnsupportedVersion = "unsupported-version"
	IDMissingMeta        = "missing-meta"
	IDHeaderMismatch     = "header-mismatch"
	IDStateless          = "stateless"
)

// modernItems are the modern items' names, in report order.
var modernItems = itemList{
	{IDDiscover, "server/discover"},
	{IDUnsupportedVersion, "Unsupported version answered with -32022"},
	{IDMissingMeta, "A request without _meta refused"},
	{IDHeaderMismatch, "Mismatched Mcp-Method refused (HTTP)"},
	{IDStateless, "Stateless: requests on fresh connections"},
}

// modernSteps decides the modern items when the server spoke the modern
// era, after every other item.
func (c *checker) modernSteps() {
	if c.report.Era != runtime.EraModern.String() {
		return
	}
	c.step(IDDiscover, c.discoverItem)
	c.step(IDUnsupportedVersion, c.unsupportedVersion)
	c.step(IDMissingMeta, c.missingMeta)
	c.step(IDHeaderMismatch, c.headerMismatch)
	c.step(IDStateless, c.stateless)
}

// envelope is the _meta of the checker's hand-built modern requests.
func (c *checker) envelope(version string) map[string]any {
	if version == "" {
		version = c.report.ProtocolVersion
	}
	return mcp.Envelope{Version: version, ClientInfo: &mcp.Implementation{Name: "mcpdeck-check", Version: c.opts.ClientVersion}}.Meta(nil)
}

// answer is one request's outcome on a raw connection.
type answer struct {
	status int // HTTP only
	result json.RawMessage
	err    *jsonrpc.Error
	fail   error // the exchange itself failed
}

// exchanger sends hand-built requests to the server.
type exchanger interface {
	send(ctx context.Context, method string, params map[string]any, headers map[string]string) answer
	close()
}

// connect opens a fresh connection to the server, dialed as the runtime
// dials its sessions (the same constructors, headers, limits, MCP
// authorization, redirect policy): a new process on stdio, a new modern
// HTTP stream.
func (c *checker) connect() (exchanger, error) {
	if c.srv.Transport == config.TransportStdio {
		p, stream, err := c.rt.StartStdio(c.srv)
		if err != nil {
			return nil, err
		}
		return &stdioExchanger{p: p, conn: jsonrpc.NewConn(stream, jsonrpc.Options{}), timeout: c.opts.CallTimeout}, nil
	}
	s, err := c.rt.DialHTTP(c.ctx, c.srv, true)
	if err != nil {
		return nil, err
	}
	return &httpExchanger{s: s, timeout: c.opts.CallTimeout}, nil
}

// onConnection runs an item on a fresh connection (connect), closed when
// it is done; a connection that cannot be made fails the item.
func (c *checker) onConnection(item func(x exchanger) (Status, string)) (Status, string) {
	x, err := c.connect()
	if err != nil {
		return Fail, "could not connect for the check: " + err.Error()
	}
	defer x.close()
	return item(x)
}

// discoverItem: server/discover answers with supportedVersions (holding
// the negotiated revision) and resultType.
func (c *checker) discoverItem() (Status, string) {
	return c.onConnection(c.discoverOn)
}

func (c *checker) discoverOn(x exchanger) (Status, string) {
	a := x.send(c.ctx, mcp.MethodDiscover, map[string]any{"_meta": c.envelope("")}, nil)
	if msg := a.problem(); msg != "" {
		return Fail, "server/discover " + msg
	}
	var r struct {
		SupportedVersions []string        `json:"supportedVersions"`
		ResultType        *string         `json:"resultType"`
		Capabilities      json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(a.result, &r)
	var problems []string
	if len(r.SupportedVersions) == 0 {
		problems = append(problems, "it lists no supportedVersions")
	} else if !slices.Contains(r.SupportedVersions, c.report.ProtocolVersion) {
		problems = append(problems, fmt.Sprintf("supportedVersions %v lacks %s, the revision it was spoken to in", r.SupportedVersions, c.report.ProtocolVersion))
	}
	if r.ResultType == nil {
		problems = append(problems, `it has no resultType (every 2026-07-28 result carries one: "complete")`)
	} else if *r.ResultType != string(mcp.Complete) {
		problems = append(problems, fmt.Sprintf("its resultType is %q, not \"complete\"", *r.ResultType))
	}
	if !bytes.HasPrefix(bytes.TrimSpace(r.Capabilities), []byte("{")) {
		problems = append(problems, "it has no capabilities object")
	}
	if len(problems) > 0 {
		return Fail, "server/discover answered, but " + strings.Join(problems, "; ")
	}
	return Pass, fmt.Sprintf("server/discover lists %s, with resultType complete", strings.Join(r.SupportedVersions, ", "))
}

// unsupportedVersion: a request for a revision nobody speaks gets -32022
// with data.supported.
func (c *checker) unsupportedVersion() (Status, string) {
	return c.onConnection(c.unsupportedVersionOn)
}

func (c *checker) unsupportedVersionOn(x exchanger) (Status, string) {
	const bogus = "2099-01-01"
	a := x.send(c.ctx, mcp.MethodDiscover, map[string]any{"_meta": c.envelope(bogus)}, nil)
	switch {
	case a.fail != nil:
		return Fail, "server/discover for " + bogus + " failed: " + a.fail.Error()
	case a.err == nil:
		return Fail, "server/discover for revision " + bogus + " was answered with a result: answer -32022 with data.supported listing the revisions you speak"
	case a.err.Code != mcp.CodeUnsupportedVersion:
		return Fail, fmt.Sprintf("server/discover for revision %s was answered with error %d (%s): answer -32022 with data.supported", bogus, a.err.Code, a.err.Message)
	}
	var uv *mcp.UnsupportedVersionError
	if !errors.As(mcp.FromCode(a.err.Code, a.err.Message, a.err.Data), &uv) {
		return Fail, fmt.Sprintf("-32022 came without data.supported (data: %s): list the revisions you speak there, so a client can retry", orEmpty(a.err.Data))
	}
	if a.status != 0 && a.status != http.StatusBadRequest {
		return Warn, fmt.Sprintf("-32022 listing %s, but with HTTP status %d: answer 400", strings.Join(uv.Supported, ", "), a.status)
	}
	return Pass, fmt.Sprintf("revision %s got -32022 listing %s", bogus, strings.Join(uv.Supported, ", "))
}

// missingMeta: a request without the _meta envelope, on a connection
// already spoken to in the modern era, gets -32602.
func (c *checker) missingMeta() (Status, string) {
	return c.onConnection(c.missingMetaOn)
}

func (c *checker) missingMetaOn(x exchanger) (Status, string) {
	// Spoken to in the 2026-07-28 revision first, so a dual-era server
	// knows the connection's era; over HTTP the version header still
	// names it, so only the body lacks the envelope.
	if a := x.send(c.ctx, "tools/list", map[string]any{"_meta": c.envelope("")}, nil); a.problem() != "" {
		return Fail, "tools/list with _meta " + a.problem()
	}
	a := x.send(c.ctx, "tools/list", map[string]any{}, map[string]string{"Mcp-Protocol-Version": c.report.ProtocolVersion})
	switch {
	case a.fail != nil:
		return Fail, "tools/list without _meta failed: " + a.fail.Error()
	case a.err != nil && a.err.Code == jsonrpc.CodeInvalidParams:
		if a.status != 0 && a.status != http.StatusBadRequest {
			return Warn, fmt.Sprintf("-32602, but with HTTP status %d: answer 400", a.status)
		}
		return Pass, "tools/list without _meta got -32602"
	case a.err != nil:
		return Warn, fmt.Sprintf("tools/list without _meta got error %d (%s); the 2026-07-28 revision says -32602", a.err.Code, a.err.Message)
	case bytes.Contains(a.result, []byte(`"resultType"`)):
		return Fail, "tools/list without _meta was answered as a 2026-07-28 request: a request missing the required _meta keys must get -32602"
	}
	return Warn, "tools/list without _meta was served as a legacy request (a dual-era server may do so); the 2026-07-28 revision says -32602 on a connection spoken to in that revision"
}

// headerMismatch (HTTP): a POST whose Mcp-Method disagrees with the body
// gets 400 with -32020.
func (c *checker) headerMismatch() (Status, string) {
	if c.srv.Transport == config.TransportStdio {
		return Skip, "stdio carries no headers: only Streamable HTTP has Mcp-Method"
	}
	return c.onConnection(c.headerMismatchOn)
}

func (c *checker) headerMismatchOn(x exchanger) (Status, string) {
	a := x.send(c.ctx, "tools/list", map[string]any{"_meta": c.envelope("")}, map[string]string{"Mcp-Method": "prompts/list"})
	switch {
	case a.fail != nil:
		return Fail, "the mismatched POST failed: " + a.fail.Error()
	case a.err == nil:
		return Fail, fmt.Sprintf("a POST of tools/list with Mcp-Method: prompts/list was answered with a result (HTTP %d): check Mcp-Method against the body and answer 400 -32020", a.status)
	case a.err.Code != mcp.CodeHeaderMismatch:
		return Fail, fmt.Sprintf("a POST of tools/list with Mcp-Method: prompts/list got error %d (%s), HTTP %d: answer 400 -32020", a.err.Code, a.err.Message, a.status)
	case a.status != http.StatusBadRequest:
		return Warn, fmt.Sprintf("-32020, but with HTTP status %d: answer 400", a.status)
	}
	return Pass, "a POST whose Mcp-Method disagrees with the body got 400 -32020"
}

// stateless: two requests, each on a fresh connection with no discovery
// first, both succeed.
func (c *checker) stateless() (Status, string) {
	for i := 1; i <= 2; i++ {
		st, msg := c.onConnection(func(x exchanger) (Status, string) {
			a := x.send(c.ctx, "tools/list", map[string]any{"_meta": c.envelope("")}, nil)
			if msg := a.problem(); msg != "" {
				return Fail, fmt.Sprintf("tools/list on fresh connection %d, with no request before it, %s: every request must stand alone", i, msg)
			}
			return Pass, ""
		})
		if st != Pass {
			return st, msg
		}
	}
	where := "two fresh processes"
	if c.srv.Transport != config.TransportStdio {
		where = "two fresh HTTP connections, without a session"
	}
	return Pass, "tools/list succeeded on " + where
}

// problem says what is wrong with an answer that should be a result.
func (a answer) problem() string {
	switch {
	case a.fail != nil:
		return "failed: " + a.fail.Error()
	case a.err != nil:
		return fmt.Sprintf("answered error %d (%s)", a.err.Code, a.err.Message)
	case len(a.result) == 0:
		return "answered with no result"
	}
	return ""
}

func orEmpty(b []byte) string {
	if len(b) == 0 {
		return "none"
	}
	return string(b)
}

// stdioExchanger is a fresh server process and a connection over its pipes.
type stdioExchanger struct {
	p       *proc.Process
	conn    *jsonrpc.Conn
	timeout time.Duration
}

func (x *stdioExchanger) send(ctx context.Context, method string, params map[string]any, _ map[string]string) answer {
	ctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	raw, err := x.conn.Call(ctx, method, params)
	var rpc *jsonrpc.Error
	switch {
	case err == nil:
		return answer{result: raw}
	case errors.As(err, &rpc):
		return answer{err: rpc}
	}
	return answer{fail: err}
}

// close stops the process; the connection's read loop ends with its stdout.
func (x *stdioExchanger) close() {
	closed := make(chan struct{})
	go func() {
		_ = x.conn.Close()
		close(closed)
	}()
	x.p.Stop()
	<-closed
}

// httpExchanger sends hand-built requests on a modern HTTP stream of its
// own (mcphttp's SendRaw), each with the 2026-07-28 headers.
type httpExchanger struct {
	s       *mcphttp.Stream
	timeout time.Duration
	id      int
}

func (x *httpExchanger) send(ctx context.Context, method string, params map[string]any, headers map[string]string) answer {
	ctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	x.id++
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": x.id, "method": method, "params": params})
	if err != nil {
		return answer{fail: err}
	}
	a, err := x.s.SendRaw(ctx, mcphttp.RawRequest{Frame: frame, Header: headers})
	if err != nil {
		return answer{fail: err}
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if a.Response == nil || json.Unmarshal(a.Response, &m) != nil || (m.Result == nil && m.Error == nil) {
		return answer{status: a.Status, fail: fmt.Errorf("HTTP %d with no JSON-RPC answer: %q", a.Status, oneLine(a.Body, 80))}
	}
	ans := answer{status: a.Status, result: m.Result}
	if m.Error != nil {
		ans.err = &jsonrpc.Error{Code: m.Error.Code, Message: m.Error.Message, Data: m.Error.Data}
	}
	return ans
}

func (x *httpExchanger) close() { x.s.Close() }
