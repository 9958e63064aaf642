package daemontest

import (
	"net"
	"strconv"
	"testing"

	"go.uber.org/goleak"

	"mcpdeck/internal/porttest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestFreePortIsOutsideTheEphemeralRange: the port a daemon is told to
// listen on must not be one the kernel hands out by itself, or an outgoing
// connection anywhere on the machine can take it between FreePort and the
// daemon's bind (the daemon then exits with "address already in use"). It
// must also be free to bind.
func TestFreePortIsOutsideTheEphemeralRange(t *testing.T) {
	low := porttest.EphemeralLow()
	for range 20 {
		port := FreePort(t)
		if port >= low || port < 1024 {
			t.Fatalf("FreePort = %d: inside the kernel's ephemeral range (from %d), where any connect(2) may take it first", port, low)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			t.Fatalf("FreePort = %d, not free: %v", port, err)
		}
		ln.Close()
	}
}
