package authtest

import (
	"fmt"
	"io"
	"net/http"
	"os"
)

// BrowserEnv, set to "1", makes MaybeBrowse act as the browser.
const BrowserEnv = "MCPDECK_AUTHTEST_BROWSER"

// Follow is the person at the browser: it opens url and follows the
// redirects, to the authorization server and back to the loopback
// listener, as clicking "allow" would.
func Follow(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("browser: %s ended with HTTP %s", resp.Request.URL.Path, resp.Status)
	}
	return nil
}

// MaybeBrowse runs the test binary as a browser and exits when BrowserEnv
// is "1": set $BROWSER to a script or to the test binary itself and call
// this first in TestMain. It follows its one argument, the authorization
// URL.
func MaybeBrowse() {
	if os.Getenv(BrowserEnv) != "1" {
		return
	}
	if len(os.Args) != 2 {
		os.Exit(2)
	}
	if err := Follow(os.Args[1]); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}
