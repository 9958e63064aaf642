package gateway

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// envClient makes the test binary a go-sdk client process: it connects to
// the gateway URL the variable names (2026-07-28, with testToken), calls
// peer__slow for 30 seconds and waits, until a test kills it.
const envClient = "MCPDECK_GATEWAY_TEST_CLIENT"

func maybeClient() {
	url := os.Getenv(envClient)
	if url == "" {
		return
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "doomed", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), httpTransport(url), &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		os.Stderr.WriteString("client: " + err.Error() + "\n")
		os.Exit(1)
	}
	// With a progress token, so the test can tell the tool is running.
	params := &mcp.CallToolParams{Name: "peer__slow", Arguments: map[string]any{"seconds": 30}}
	params.SetProgressToken("doomed")
	_, _ = cs.CallTool(context.Background(), params)
	os.Exit(0)
}

// childProcs returns the live child processes of this test process whose
// environment holds kv: how the tests count server processes.
func childProcs(t testing.TB, kv string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to count processes in")
	}
	var pids []int
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 2 || fields[0] == "Z" || fields[0] == "X" || fields[1] != strconv.Itoa(self) {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, v := range bytes.Split(env, []byte{0}) {
			if string(v) == kv {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}
