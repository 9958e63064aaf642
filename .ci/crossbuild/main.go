// Command crossbuild type-checks mcpdeck, tests included, for operating
// systems other than the one it runs on: every package from its source
// (go/packages with syntax and types for all dependencies, the standard
// library too), so nothing is compiled. .ci/run runs it for Windows and
// macOS beside the tests: a type error that only one OS's build tags
// expose (a unix-only syscall in a file macOS shares with Linux, a
// Windows counterpart that fell behind its Linux file) fails the run, as a
// cross-compile would, at a fraction of its cost (a cross-compile of the
// whole module took about three minutes of the CI machine per OS).
//
// Usage: go run . ROOT GOOS...
package main

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: crossbuild ROOT GOOS...")
		os.Exit(2)
	}
	root, failed := os.Args[1], false
	for _, goos := range os.Args[2:] {
		n, errs, err := check(root, goos)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: loading the packages: %v\n", goos, err)
			failed = true
			continue
		}
		for _, e := range errs {
			fmt.Fprintf(os.Stderr, "%s: %s\n", goos, e)
		}
		if len(errs) > 0 {
			failed = true
		}
		fmt.Printf("%s: %d packages of mcpdeck (tests included) type-check: %d errors\n", goos, n, len(errs))
	}
	if failed {
		os.Exit(1)
	}
}

// check type-checks ./... under root for goos, returning how many of the
// module's packages it checked and every error found in any package.
func check(root, goos string) (int, []string, error) {
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedSyntax | packages.NeedTypes,
		Dir:   root,
		Env:   append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0"),
		Tests: true,
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return 0, nil, err
	}
	var errs []string
	seen := map[string]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			if s := e.Error(); !seen[s] {
				seen[s] = true
				errs = append(errs, s)
			}
		}
	})
	n := 0
	for _, p := range pkgs {
		if !strings.HasSuffix(p.ID, ".test") {
			n++
		}
	}
	return n, errs, nil
}
