package mcp

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"mcpdeck/jsonrpc"
)

func TestAsModernUnsupportedVersion(t *testing.T) {
	wire := &jsonrpc.Error{Code: -32022, Message: "Unsupported protocol version: 2099-01-01", Data: []byte(`{"supported":["2026-07-28","2025-11-25"],"requested":"2099-01-01"}`)}
	err := AsModern(fmt.Errorf("tools/list: %w", wire))
	var uv *UnsupportedVersionError
	if !errors.As(err, &uv) || !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatalf("AsModern = %v, want an UnsupportedVersionError", err)
	}
	if !slices.Equal(uv.Supported, []string{"2026-07-28", "2025-11-25"}) || uv.Requested != "2099-01-01" {
		t.Errorf("decoded %+v", uv)
	}
	if v, err := uv.Choose(Versions()); err != nil || v != "2026-07-28" {
		t.Errorf("Choose = %q, %v; want 2026-07-28", v, err)
	}
	if v, err := uv.Choose([]string{"2024-11-05"}); !errors.Is(err, ErrNoMutualVersion) || v != "" {
		t.Errorf("Choose with nothing mutual = %q, %v; want ErrNoMutualVersion", v, err)
	} else if !strings.Contains(err.Error(), "2026-07-28, 2025-11-25") || !strings.Contains(err.Error(), "2024-11-05") {
		t.Errorf("the no-mutual error does not name both sides: %v", err)
	}
}

func TestAsModernMissingCapability(t *testing.T) {
	wire := &jsonrpc.Error{Code: -32021, Message: "Missing required client capability", Data: []byte(`{"requiredCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`)}
	err := AsModern(wire)
	var mc *MissingCapabilityError
	if !errors.As(err, &mc) || !errors.Is(err, ErrMissingCapability) {
		t.Fatalf("AsModern = %v", err)
	}
	if got := mc.Names(); !slices.Equal(got, []string{"elicitation", "extensions/io.modelcontextprotocol/tasks"}) {
		t.Errorf("Names() = %v", got)
	}
	if !strings.Contains(err.Error(), "elicitation") {
		t.Errorf("message %q does not say what is needed", err)
	}
}

func TestAsModernHeaderMismatch(t *testing.T) {
	err := AsModern(&jsonrpc.Error{Code: -32020, Message: "Mcp-Name header is absent"})
	if !errors.Is(err, ErrHeaderMismatch) || !strings.Contains(err.Error(), "Mcp-Name header is absent") {
		t.Errorf("AsModern = %v", err)
	}
}

func TestAsModernRejectsOthers(t *testing.T) {
	for name, err := range map[string]error{
		"method not found":        &jsonrpc.Error{Code: -32601, Message: "Method not found"},
		"invalid params":          &jsonrpc.Error{Code: -32602, Message: "missing _meta"},
		"-32022 without data":     &jsonrpc.Error{Code: -32022, Message: "nope"},
		"-32022 with bad data":    &jsonrpc.Error{Code: -32022, Message: "nope", Data: []byte(`{"supported":"2026-07-28"}`)},
		"-32021 without required": &jsonrpc.Error{Code: -32021, Message: "nope", Data: []byte(`{}`)},
		"not an rpc error":        errors.New("EOF"),
		"nil":                     nil,
	} {
		if got := AsModern(err); got != nil {
			t.Errorf("%s: AsModern = %v, want nil", name, got)
		}
	}
	if !IsModernCode(-32020) || !IsModernCode(-32022) || IsModernCode(-32601) || IsModernCode(-32002) {
		t.Error("IsModernCode is wrong")
	}
}
