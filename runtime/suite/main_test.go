package suite

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"mcpdeck/jsonrpc/jsonrpctest"
)

func TestMain(m *testing.M) {
	jsonrpctest.MaybeServe()
	if mode := os.Getenv(envPeer); mode != "" {
		os.Exit(serveGoSDKPeer(mode))
	}
	goleak.VerifyTestMain(m)
}
