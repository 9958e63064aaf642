package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mcpdeck/jsonrpc"
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
// result), with the scan the connection reads every frame's envelope with
// (jsonrpc.Member). ok is false when it cannot tell: not an object, an
// escape in a top-level key, a non-string or escaped value for key, or
// malformed JSON; the caller then decodes properly.
func topLevelString(raw []byte, key string) (value string, found, ok bool) {
	v, found, ok := jsonrpc.Member(raw, key)
	switch {
	case !ok || !found:
		return "", false, ok
	case len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || bytes.IndexByte(v, '\\') >= 0:
		return "", false, false
	}
	return string(v[1 : len(v)-1]), true, true
}
