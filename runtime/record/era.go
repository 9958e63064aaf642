package record

import (
	stdjson "encoding/json"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// Eras a line can name: mcp.Era's names.
var (
	EraModern = mcp.Modern.String()
	EraLegacy = mcp.Legacy.String()
)

// EraOf names the era of a negotiated protocol version ("" if unknown).
func EraOf(protocolVersion string) string {
	if era := mcp.EraOf(protocolVersion); era != mcp.Unknown {
		return era.String()
	}
	return ""
}

// eraOf is the era of the server e concerns, as far as the recording has
// seen: the initialize result (or server/discover) on the wire, then each
// publication's negotiated version. A new initialize forgets it until
// answered.
func (r *Recorder) eraOf(e runtime.Event) string {
	srv := e.Header().Server
	if srv == "" {
		return ""
	}
	if tf, ok := e.(runtime.TrafficFrame); ok {
		switch f := tf.Frame; {
		case f.Method == mcp.MethodInitialize && f.Dir == runtime.Out && f.Kind == jsonrpc.KindRequest:
			delete(r.era, srv)
		case f.Method == mcp.MethodDiscover && f.Dir == runtime.In:
			r.era[srv] = EraModern
		case f.Method == mcp.MethodInitialize && f.Dir == runtime.In:
			var res jsonrpc.Response[mcp.InitializeResult]
			if stdjson.Unmarshal(f.Raw, &res) == nil {
				if era := EraOf(res.Result.ProtocolVersion); era != "" {
					r.era[srv] = era
				}
			}
		}
	}
	return r.era[srv]
}

// noteEras learns the eras of a publication's servers.
func (r *Recorder) noteEras(s *runtime.Snapshot) {
	for _, v := range s.Servers {
		if era := EraOf(v.ProtocolVersion); era != "" {
			r.era[v.Name] = era
		}
	}
}
