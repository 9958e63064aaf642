//go:build !unix

package jsonrpc

// Elsewhere a write is not interrupted once begun: ctxWriter writes to
// the file as it is.
const canInterrupt = false

func rawWrite(uintptr, []byte) (int, error) { panic("unreachable") }

func wouldBlock(error) bool { return false }

func interrupted(error) bool { return false }
