package otelcoltest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// DecodeTraces decodes an OTLP/JSON export request, the body mcpdeck
// sends to /v1/traces, for the tests' in-process receivers. It uses
// protobuf's own JSON decoder, which refuses unknown field names, so a
// field mcpdeck misnames fails the test; first the hex trace and span ids
// of OTLP's JSON encoding become the base64 of the standard mapping.
func DecodeTraces(body []byte) (*coltracepb.ExportTraceServiceRequest, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("an OTLP/JSON body: %w", err)
	}
	if err := idsToBase64(doc); err != nil {
		return nil, err
	}
	std, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := protojson.Unmarshal(std, &req); err != nil {
		return nil, fmt.Errorf("an OTLP/JSON ExportTraceServiceRequest: %w", err)
	}
	return &req, nil
}

func idsToBase64(v any) error {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
				raw, err := hex.DecodeString(s)
				if err != nil {
					return fmt.Errorf("%s %q is not hex, as OTLP/JSON writes ids: %w", k, s, err)
				}
				v[k] = base64.StdEncoding.EncodeToString(raw)
				continue
			}
			if err := idsToBase64(x); err != nil {
				return err
			}
		}
	case []any:
		for _, x := range v {
			if err := idsToBase64(x); err != nil {
				return err
			}
		}
	}
	return nil
}
