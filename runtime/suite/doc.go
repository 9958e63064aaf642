// Package suite owns mcpdeck's test suites: YAML files a server author keeps
// in the repository (mcp-tests/*.mcptest.yaml) and runs in CI with
// `mcpdeck test`. It parses them with file:line:col errors, runs their steps
// through the runtime (the same connection, validation and timeouts as every
// other command), checks each step's expectations, keeps snapshots, and
// reports the outcome as data the command line words for people, as JSON,
// or as JUnit XML. It also writes suites: a step appended from a call made
// by hand (the TUI's T key) and a suite made from a session recording.
//
// The format is documented in FORMAT.md beside this file, with a JSON
// Schema for editors in mcptest.schema.json.
//
// A suite is run by Run, with an Opener the caller supplies: the runner
// knows nothing of configuration files, approvals or flags, only how to use
// a ready *runtime.Controller. Run starts no goroutine that outlives it.
package suite
