package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"mcpdeck/internal/clip"
)

// maxToolName bounds normalized tool names; many clients reject longer ones.
const maxToolName = 64

// normalizeName builds the normalized name of a server's tool:
// server__tool, sanitized to [A-Za-z0-9_-], at most 64 characters. A name
// that had to be shortened ends in a hash of the original pair, so it stays
// unique and is the same on every reconnect.
func normalizeName(server, tool string) string {
	name := sanitize(server) + "__" + sanitize(tool)
	if len(name) <= maxToolName {
		return name
	}
	suffix := "_" + pairHash(server, tool)
	return name[:maxToolName-len(suffix)] + suffix
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

func pairHash(server, tool string) string {
	h := sha256.Sum256([]byte(server + "\x00" + tool))
	return hex.EncodeToString(h[:4])
}

// bridgeTools normalizes every server's tools into one list with unique
// names. Where two different (server, tool) pairs sanitize to the same
// name, each gets its hash suffix; the result depends only on the pairs, so
// it is stable across reconnects.
func bridgeTools(perServer map[string][]Tool) []Tool {
	var all []Tool
	count := map[string]int{}
	for server, tools := range perServer {
		for _, t := range tools {
			t.Server = server
			t.Name = normalizeName(server, t.ServerTool)
			count[t.Name]++
			all = append(all, t)
		}
	}
	for i, t := range all {
		if count[t.Name] > 1 {
			suffix := "_" + pairHash(t.Server, t.ServerTool)
			base := t.Name
			if len(base)+len(suffix) > maxToolName {
				base = base[:maxToolName-len(suffix)]
			}
			all[i].Name = base + suffix
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all
}

// DefaultResultLimit bounds the text of one result.
const DefaultResultLimit = 256 << 10

// decodeResult parses a tools/call result, bounds its size and checks
// structuredContent against the output schema.
func decodeResult(raw json.RawMessage, limit int, outputSchema json.RawMessage) (*Result, error) {
	// Result's wire members are mcp.CallToolResult's (TestResultDecodesTheVocabulary
	// holds them together): decoding straight into it spares the hot path
	// a second allocation. The runtime's own members are its to set.
	var r Result
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("decoding the tools/call result: %w: %w", ErrProtocol, err)
	}
	r.Truncated, r.OriginalSize, r.StructuredError = false, 0, ""
	r.RequestID, r.Duration, r.Rounds, r.TaskID = 0, 0, 0, ""
	r.Extra = extraMembers(raw)
	truncate(&r, limit)
	if len(outputSchema) > 0 && len(r.StructuredContent) > 0 && !r.IsError {
		if errs, err := ValidateArguments(outputSchema, r.StructuredContent); err != nil {
			r.StructuredError = "outputSchema does not compile: " + err.Error()
		} else if len(errs) > 0 {
			msgs := make([]string, len(errs))
			for i, e := range errs {
				msgs[i] = e.String()
			}
			r.StructuredError = "structuredContent does not match outputSchema: " + strings.Join(msgs, "; ")
		}
	} else if len(outputSchema) > 0 && len(r.StructuredContent) == 0 && !r.IsError {
		r.StructuredError = "the tool declares an outputSchema but returned no structuredContent"
	}
	return &r, nil
}

// truncateMarker is appended where text was cut.
const truncateMarker = "\n…[truncated by mcpdeck: the result had %d bytes of text and binary data; the limit is %d]"

// truncate bounds the text and binary data of a result to limit bytes in
// all, cutting the block that crosses it and dropping the blocks after it.
func truncate(r *Result, limit int) {
	if limit <= 0 {
		return
	}
	var total int64
	for _, c := range r.Content {
		total += int64(blockSize(c))
	}
	total += int64(len(r.StructuredContent))
	if total <= int64(limit) {
		return
	}
	r.Truncated, r.OriginalSize = true, total
	left := limit
	for i := range r.Content {
		c := &r.Content[i]
		n := blockSize(*c)
		if n <= left {
			left -= n
			continue
		}
		switch {
		case c.Type == "text":
			c.Text = clip.Prefix(c.Text, left) + fmt.Sprintf(truncateMarker, total, limit)
		default:
			// Binary and embedded blocks are not cut mid-way: keep the type
			// and say what was dropped.
			*c = Content{Type: "text", Text: fmt.Sprintf("[%s block of %d bytes dropped]", c.Type, n) + fmt.Sprintf(truncateMarker, total, limit)}
		}
		r.Content = r.Content[:i+1]
		break
	}
	if len(r.StructuredContent) > 0 && int(total) > limit {
		if len(r.StructuredContent) > left {
			r.StructuredContent = nil
			r.StructuredError = fmt.Sprintf("structuredContent dropped: the result exceeded %d bytes", limit)
		}
	}
}

func blockSize(c Content) int {
	n := len(c.Text) + len(c.Data)
	if c.Resource != nil {
		n += len(c.Resource.Text) + len(c.Resource.Blob)
	}
	return n
}

// BridgeNames names (server, name) pairs the way tools are bridged —
// server__name, sanitized, at most 64 characters, unique, stable across
// reconnects — for anything else a face lists across servers (the
// gateway's prompts). The result maps {server, name} to the bridged name.
func BridgeNames(perServer map[string][]string) map[[2]string]string {
	tools := make(map[string][]Tool, len(perServer))
	for server, names := range perServer {
		for _, n := range names {
			tools[server] = append(tools[server], Tool{ServerTool: n})
		}
	}
	out := map[[2]string]string{}
	for _, t := range bridgeTools(tools) {
		out[[2]string{t.Server, t.ServerTool}] = t.Name
	}
	return out
}
