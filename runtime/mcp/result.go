package mcp

import (
	"encoding/json"
	"fmt"
)

// ResultType says how to read a result.
type ResultType string

// The result types mcpdeck knows. Extensions add values; task is the tasks
// extension's.
const (
	// Complete: the final result. An absent resultType (legacy servers)
	// means complete.
	Complete ResultType = "complete"
	// InputRequired: the server needs input (MRTR) before it can finish.
	InputRequired ResultType = "input_required"
	// TaskResult: the tasks extension's CreateTaskResult, a handle to poll.
	TaskResult ResultType = "task"
)

// TypeOf reads a result's resultType. Absent means Complete, for servers of
// earlier revisions. A value mcpdeck does not know is invalid (the
// specification says so), and so is task unless the request declared the
// tasks extension (tasks): the error wraps ErrUnknownResultType and names
// the value.
func TypeOf(result json.RawMessage, tasks bool) (ResultType, error) {
	value, found, ok := topLevelString(result, "resultType")
	if !ok {
		// Not a plain object, or a key the fast scan does not read: decode.
		var r resultHead
		if err := json.Unmarshal(result, &r); err != nil {
			return "", fmt.Errorf("%w: the result is not a JSON object: %v", ErrBadResult, err)
		}
		value, found = "", r.ResultType != nil
		if found {
			value = *r.ResultType
		}
	}
	if !found {
		return Complete, nil
	}
	if value == "" {
		return "", fmt.Errorf("%w \"\": an empty resultType", ErrUnknownResultType)
	}
	return ResultType(value).Check(tasks)
}

// Check validates a resultType as read: absent ("") means Complete; a
// value mcpdeck does not know is invalid (the specification says so), and
// so is task unless the request declared the tasks extension (tasks). The
// error wraps ErrUnknownResultType and names the value.
func (t ResultType) Check(tasks bool) (ResultType, error) {
	switch t {
	case "":
		return Complete, nil
	case Complete, InputRequired:
		return t, nil
	case TaskResult:
		if tasks {
			return t, nil
		}
		return "", fmt.Errorf("%w %q: the server answered with a task although the request did not declare the tasks extension (%s)", ErrUnknownResultType, t, ExtensionTasks)
	default:
		return "", fmt.Errorf("%w %q: mcpdeck knows complete, input_required and task; the server speaks an extension mcpdeck did not declare", ErrUnknownResultType, t)
	}
}

// ServerInfo returns result._meta["io.modelcontextprotocol/serverInfo"],
// the identity modern servers put on every result, or nil.
func ServerInfo(result json.RawMessage) *Implementation {
	var r resultHead
	if json.Unmarshal(result, &r) != nil {
		return nil
	}
	var info Implementation
	if raw := MetaValue(r.Meta, MetaServerInfo); raw == nil || json.Unmarshal(raw, &info) != nil {
		return nil
	}
	return &info
}

// resultHead is what every result may carry, whatever its type.
type resultHead struct {
	ResultType *string         `json:"resultType"`
	Meta       json.RawMessage `json:"_meta"`
}

// topLevelString finds key among the members of a JSON object and returns
// its string value, in one pass without allocating (TypeOf runs on every
// result). ok is false when it cannot tell: not an object, an escape in a
// top-level key, a non-string value for key, or malformed JSON; the caller
// then decodes properly.
func topLevelString(raw []byte, key string) (value string, found, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return "", false, false
	}
	depth := 0
	expectKey := false
	for ; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '{', '[':
			depth++
			expectKey = c == '{' && depth == 1
		case '}', ']':
			depth--
			if depth == 0 {
				return "", false, true
			}
		case ',':
			expectKey = depth == 1
		case '"':
			end, escaped := stringEnd(raw, i)
			if end < 0 {
				return "", false, false
			}
			if depth == 1 && expectKey {
				if escaped {
					return "", false, false
				}
				expectKey = false
				if string(raw[i+1:end]) == key {
					j := skipSpace(raw, end+1)
					if j >= len(raw) || raw[j] != ':' {
						return "", false, false
					}
					j = skipSpace(raw, j+1)
					if j >= len(raw) || raw[j] != '"' {
						return "", false, false
					}
					vend, vesc := stringEnd(raw, j)
					if vend < 0 || vesc {
						return "", false, false
					}
					return string(raw[j+1 : vend]), true, true
				}
			}
			i = end
		}
	}
	return "", false, false
}

// stringEnd returns the index of the quote closing the string that opens
// at raw[start], and whether it held an escape; -1 when unterminated.
func stringEnd(raw []byte, start int) (int, bool) {
	escaped := false
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i, escaped
		}
	}
	return -1, escaped
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
