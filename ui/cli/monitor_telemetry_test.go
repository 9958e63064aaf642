package cli

import (
	"reflect"
	"testing"

	"mcpdeck/runtime/telemetry"
)

// The state gauge reports every runtime state, in lifecycle order.
func TestStateNamesCoverTheRuntime(t *testing.T) {
	t.Parallel()
	names := stateNames()
	if !reflect.DeepEqual(names[:len(telemetry.DefaultStates)], telemetry.DefaultStates) || len(names) < 11 {
		t.Errorf("runtime states %v do not extend telemetry.DefaultStates %v", names, telemetry.DefaultStates)
	}
}
