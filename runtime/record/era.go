package record

import (
	stdjson "encoding/json"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
)

// modernVersion is the first protocol revision of the stateless ("modern")
// era; every revision before it is of the session ("legacy") era.
const modernVersion = "2026-07-28"

// Eras a line can name.
const (
	EraModern = "modern"
	EraLegacy = "legacy"
)

// EraOf names the era of a negotiated protocol version ("" if unknown).
// Revisions are dates, so they order as strings.
func EraOf(protocolVersion string) string {
	switch {
	case protocolVersion == "":
		return ""
	case protocolVersion >= modernVersion:
		return EraModern
	default:
		return EraLegacy
	}
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
		case f.Method == "initialize" && f.Dir == runtime.Out && f.Kind == jsonrpc.KindRequest:
			delete(r.era, srv)
		case f.Method == "server/discover" && f.Dir == runtime.In:
			r.era[srv] = EraModern
		case f.Method == "initialize" && f.Dir == runtime.In:
			var res struct {
				Result struct {
					ProtocolVersion string `json:"protocolVersion"`
				} `json:"result"`
			}
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
