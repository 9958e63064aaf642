package jsonrpctest

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
)

// Hostile modes: the normal server plus one defect aimed at the client's
// robustness rather than its protocol handling.
const (
	// NullIDError answers every tools/call with an error whose id is null,
	// as a server that could not read the request's id does.
	NullIDError Mode = "null-id-error"
	// DeepResponse answers every tools/call with a result nested
	// MCPDECK_FAKE_DEPTH arrays deep (default 12000), beyond what
	// encoding/json decodes.
	DeepResponse Mode = "deep-response"
	// DeepSchema lists one more tool, "deep", whose inputSchema nests
	// MCPDECK_FAKE_DEPTH object schemas (default 2000), each a property of
	// the one above.
	DeepSchema Mode = "deep-schema"
	// BadUTF8 sends, after notifications/initialized, a notifications/message
	// whose data string holds bytes that are not UTF-8 ("bad \xff\xfe bytes").
	BadUTF8 Mode = "bad-utf8"
)

// EnvDepth sets the nesting of DeepResponse and DeepSchema.
const EnvDepth = "MCPDECK_FAKE_DEPTH"

// WithDepth sets the nesting of DeepResponse and DeepSchema.
func WithDepth(n int) Option { return WithEnv(EnvDepth, strconv.Itoa(n)) }

// depth reads EnvDepth; the server exits 2 on a malformed value, as for
// every other knob.
func depth(def int) int {
	v := os.Getenv(EnvDepth)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		os.Stderr.WriteString("fake server: " + EnvDepth + "=" + v + ": want a positive count\n")
		os.Exit(2)
	}
	return n
}

// hostileCall answers tools/call for the hostile modes that replace the
// answer; it reports whether it did.
func (s *server) hostileCall(c *call) bool {
	switch s.mode {
	case NullIDError:
		s.out.send(response{JSONRPC: "2.0", ID: nullID, Error: &rpcError{codeInvalidRequest, "invalid request: could not read the id"}})
		return true
	case DeepResponse:
		n := depth(12000)
		line := `{"jsonrpc":"2.0","id":` + string(c.id) + `,"result":{"content":[],"deep":` +
			strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`
		s.out.mu.Lock()
		_, _ = s.out.w.WriteString(line + "\n")
		_ = s.out.w.Flush()
		s.out.mu.Unlock()
		return true
	}
	return false
}

// deepPlaceholder stands in for the deep schema while a tools/list page is
// marshalled: encoding/json refuses to marshal what nests beyond 10,000
// levels, so the schema is spliced into the marshalled page.
const deepPlaceholder = `"mcpdeck-fake-deep-schema"`

// deepSchema is DeepSchema's input schema.
func deepSchema() []byte {
	n := depth(2000)
	return []byte(strings.Repeat(`{"type":"object","properties":{"a":`, n) + `{"type":"string"}` + strings.Repeat(`}}`, n))
}

// hostileTools are the tools a hostile mode adds to the catalogue.
func hostileTools(mode Mode) []*tool {
	if mode != DeepSchema {
		return nil
	}
	return []*tool{{name: "deep", description: "Its input schema nests very deeply.", rawSchema: json.RawMessage(deepPlaceholder), run: runOK}}
}

// hostileList writes a tools/list page holding the deep schema; it
// reports whether it did.
func (s *server) hostileList(c *call, result map[string]any) bool {
	if s.mode != DeepSchema || c.cancelled.Load() {
		return false
	}
	data, err := json.Marshal(response{JSONRPC: "2.0", ID: c.id, Result: result})
	if err != nil || !bytes.Contains(data, []byte(deepPlaceholder)) {
		return false
	}
	data = bytes.Replace(data, []byte(deepPlaceholder), deepSchema(), 1)
	s.out.mu.Lock()
	defer s.out.mu.Unlock()
	_, _ = s.out.w.Write(append(data, '\n'))
	_ = s.out.w.Flush()
	return true
}

// hostileInitialized runs the hostile modes' defects that follow
// notifications/initialized.
func (s *server) hostileInitialized() {
	if s.mode != BadUTF8 {
		return
	}
	line := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"bad-utf8","data":"bad ` + "\xff\xfe" + ` bytes"}}`
	s.out.mu.Lock()
	_, _ = s.out.w.WriteString(line + "\n")
	_ = s.out.w.Flush()
	s.out.mu.Unlock()
}
