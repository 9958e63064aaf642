package mcp

import (
	"testing"

	"go.uber.org/goleak"

	"mcpdeck/jsonrpc/jsonrpctest"
)

func TestMain(m *testing.M) {
	jsonrpctest.MaybeServe() // the benchmarks' servers are this binary, re-executed
	goleak.VerifyTestMain(m)
}
