// Package porttest picks loopback ports for tests that start a server
// which cannot report the port it bound (Prometheus, the OpenTelemetry
// Collector, server-everything, an OAuth redirect listener): the test
// must name the port before the server starts.
//
// The usual trick, bind 127.0.0.1:0 and close, hands back a port from the
// kernel's ephemeral range, the range every other bind(0) and every
// outgoing connect(2) on the machine draws from. Between the close and
// the server's own bind (seconds, for a daemon starting under -race on a
// loaded CI machine) the port is free for any of those to take, and the
// server then exits with "address already in use". Free picks below the
// ephemeral range instead, where the kernel never allocates on its own.
package porttest

import (
	"crypto/rand"
	"math/big"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// lowest is the smallest port Free picks: well above the registered
// ports that services commonly listen on.
const lowest = 20000

// ephemeralDefault is where the ephemeral range starts where the system
// does not say: IANA's 49152, the default of macOS, the BSDs and Windows.
const ephemeralDefault = 49152

// Free returns a loopback TCP port that was free a moment ago and that the
// kernel will not hand to another socket on its own: only a process that
// names it explicitly can take it before the caller's server binds it.
func Free(t testing.TB) int {
	t.Helper()
	high := EphemeralLow()
	for range 100 {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(high-lowest)))
		if err != nil {
			t.Fatal(err)
		}
		port := lowest + int(n.Int64())
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue // in use: another try
		}
		ln.Close()
		return port
	}
	t.Fatalf("no free loopback port in [%d, %d) after 100 tries", lowest, high)
	return 0
}

// EphemeralLow is the first port of the kernel's ephemeral range (Linux:
// /proc/sys/net/ipv4/ip_local_port_range; elsewhere IANA's 49152). Where
// the range leaves no room below it (a system tuned to 1024-65535) there
// is no port the kernel will not allocate; EphemeralLow is then 49152,
// and Free no worse than a bind to port 0.
func EphemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return ephemeralDefault
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return ephemeralDefault
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil || low < lowest+5000 {
		return ephemeralDefault
	}
	return low
}
