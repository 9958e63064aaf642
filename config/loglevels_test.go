package config_test

import (
	"slices"
	"testing"

	"mcpdeck/config"
	"mcpdeck/runtime/mcp"
)

// config imports nothing of ours, so it keeps its own copy of the MCP log
// levels; this holds the copy to the vocabulary's one list.
func TestLogLevelsAreTheVocabularys(t *testing.T) {
	if want := mcp.LevelNames(); !slices.Equal(config.LogLevels, want) {
		t.Fatalf("config.LogLevels = %v, the vocabulary's are %v", config.LogLevels, want)
	}
}
