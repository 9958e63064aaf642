package auth

import (
	"testing"

	"go.uber.org/goleak"

	"mcpdeck/runtime/auth/authtest"
)

func TestMain(m *testing.M) {
	// A test sets $BROWSER to this binary; it then follows the URL.
	authtest.MaybeBrowse()
	goleak.VerifyTestMain(m)
}
