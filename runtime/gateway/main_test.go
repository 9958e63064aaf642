package gateway

import (
	"context"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/demoserver"
)

// envDemo makes the test binary run the demo server (with a fast heartbeat,
// so logs and resource updates flow within a test).
const envDemo = "MCPDECK_GATEWAY_TEST_DEMO"

func TestMain(m *testing.M) {
	jsonrpctest.MaybeServe()
	if os.Getenv(envDemo) == "1" {
		err := demoserver.Run(context.Background(), os.Stdin, os.Stdout, demoserver.Options{LogInterval: 100 * time.Millisecond, Stderr: os.Stderr})
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	maybeRelay()
	maybeClient()
	maybeServeGateway()
	maybeServeRoots()
	maybeServeOwn()
	maybeServeMirror()
	goleak.VerifyTestMain(m)
}
