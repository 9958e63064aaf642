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
	var r struct {
		ResultType *string `json:"resultType"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "", fmt.Errorf("%w: the result is not a JSON object: %v", ErrBadResult, err)
	}
	if r.ResultType == nil {
		return Complete, nil
	}
	switch t := ResultType(*r.ResultType); t {
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
	var r struct {
		Meta struct {
			Info *Implementation `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	if json.Unmarshal(result, &r) != nil {
		return nil
	}
	return r.Meta.Info
}
