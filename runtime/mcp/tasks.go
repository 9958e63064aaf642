package mcp

import (
	"encoding/json"
	"fmt"
	"time"
)

// The tasks extension's methods and notification.
const (
	MethodTasksGet          = "tasks/get"
	MethodTasksUpdate       = "tasks/update"
	MethodTasksCancel       = "tasks/cancel"
	NotificationTasksStatus = "notifications/tasks/status"
	DefaultTaskPollInterval = time.Second
	minTaskPollInterval     = 100 * time.Millisecond
)

// TaskStatus is a task's state.
type TaskStatus string

// The task states; the last three are terminal.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether the state never changes again.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Task is a task's state: what a CreateTaskResult (resultType "task") and
// a tasks/get result carry. Result, Error and InputRequests are set for
// the states they belong to.
type Task struct {
	TaskID         string                  `json:"taskId"`
	Status         TaskStatus              `json:"status"`
	StatusMessage  string                  `json:"statusMessage,omitempty"`
	CreatedAt      string                  `json:"createdAt,omitempty"`
	LastUpdatedAt  string                  `json:"lastUpdatedAt,omitempty"`
	TTLMs          *int64                  `json:"ttlMs"` // null: unlimited
	PollIntervalMs *int64                  `json:"pollIntervalMs,omitempty"`
	InputRequests  map[string]InputRequest `json:"inputRequests,omitempty"`
	Result         json.RawMessage         `json:"result,omitempty"`
	Error          json.RawMessage         `json:"error,omitempty"`
}

// DecodeTask reads a CreateTaskResult or a tasks/get result.
func DecodeTask(result json.RawMessage) (Task, error) {
	var t Task
	if err := json.Unmarshal(result, &t); err != nil {
		return t, fmt.Errorf("%w: task: %v", ErrBadResult, err)
	}
	if t.TaskID == "" {
		return t, fmt.Errorf("%w: task: no taskId", ErrBadResult)
	}
	switch t.Status {
	case TaskWorking, TaskInputRequired, TaskCompleted, TaskFailed, TaskCancelled:
	default:
		return t, fmt.Errorf("%w: task %s: unknown status %q", ErrBadResult, t.TaskID, t.Status)
	}
	return t, nil
}

// PollInterval is how long to wait before the next tasks/get: the server's
// pollIntervalMs, bounded below so a server cannot make the client spin,
// or DefaultTaskPollInterval.
func (t Task) PollInterval() time.Duration {
	if t.PollIntervalMs == nil || *t.PollIntervalMs <= 0 {
		return DefaultTaskPollInterval
	}
	return max(time.Duration(*t.PollIntervalMs)*time.Millisecond, minTaskPollInterval)
}

// TaskRef is the params of a request about one task (tasks/get,
// tasks/cancel, tasks/result) and of notifications/tasks/status, as the
// wire carries them.
type TaskRef struct {
	TaskID string          `json:"taskId"`
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

// TaskIDParams are the params of tasks/get and tasks/cancel, envelope
// included.
func TaskIDParams(taskID string, env Envelope) map[string]any {
	return env.Apply(map[string]any{"taskId": taskID})
}

// TaskUpdateParams are the params of tasks/update: the answers to the
// task's input requests.
func TaskUpdateParams(taskID string, responses map[string]json.RawMessage, env Envelope) map[string]any {
	return env.Apply(map[string]any{"taskId": taskID, "inputResponses": responses})
}
