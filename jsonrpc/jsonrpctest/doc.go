// Package jsonrpctest owns the misbehaving fake MCP servers that transport, runtime,
// check and CLI tests run against.
//
// Following the Go MCP SDK, a fake server is the test binary itself, re-executed with
// the environment variable MCPDECK_FAKE_SERVER naming a [Mode]. Every package whose
// tests start a fake server calls [MaybeServe] first thing in TestMain:
//
//	func TestMain(m *testing.M) {
//		jsonrpctest.MaybeServe() // serves and exits when MCPDECK_FAKE_SERVER is set
//		goleak.VerifyTestMain(m)
//	}
//
// and starts one with the command [Command] returns:
//
//	path, args, env := jsonrpctest.Command(jsonrpctest.WrongID)
//	cmd := exec.Command(path, args...)
//	cmd.Env = env
//
// The same command works from an mcp.json written by a test, because the arguments
// ("-test.run=^$") make the binary run no tests even if MaybeServe were skipped, and
// [ServerEnv] gives just the variables to put under the server's "env":
//
//	{"mcpServers": {"fake": {"command": "<path>", "args": ["-test.run=^$"],
//	  "env": {"MCPDECK_FAKE_SERVER": "hang"}}}}
//
// A binary whose TestMain does not call MaybeServe runs no tests and exits 0 at once,
// which looks like a server that closed its stdout: call MaybeServe in every such package.
//
// Command also sets GORACE=atexit_sleep_ms=0: under -race a child otherwise sleeps a
// second before exiting, which would turn every graceful stop under test into a
// SIGTERM escalation.
//
// # The normal server
//
// initialize negotiates 2025-11-25, 2025-06-18, 2025-03-26 or 2024-11-05 (anything else
// gets 2025-11-25) and declares tools{listChanged}, logging, resources{subscribe} and
// prompts. ping, logging/setLevel and resources/(un)subscribe answer {}; prompts/list,
// resources/list and resources/templates/list answer empty lists; other methods -32601.
// tools/list has two pages (nextCursor "page2"). The tools:
//
//	echo {text: string, required}  one text block equal to text
//	slow {seconds: number}         answers after seconds (default 30); progress every 50 ms
//	                               when _meta.progressToken is set; never answers if cancelled
//	big {bytes: integer}           one text block of that many 'x' (default 1 MiB)
//	notify_changed                 sends notifications/tools/list_changed, then answers "ok"
//	flood {count: integer}         count notifications/message {level info, logger "flood",
//	                               data {seq}} (default 1000), then answers "done"
//	crash                          writes "crashing on purpose" to stderr and exits 3
//	fail                           an isError result
//
// An unknown tool is error -32602 "unknown tool: NAME"; arguments that break the schema
// give an isError result naming the field. A request cancelled with
// notifications/cancelled is never answered. The server exits 0 at stdin EOF.
//
// # What tests can read on stderr
//
//	cancelled <id> <reason>       every mode, for each notifications/cancelled received
//	grandchild <pid>              Grandchild, once the grandchild ignores SIGTERM
//	stdin closed; still running   IgnoreTerm and IgnoreEOF, at stdin EOF
//	crashing on purpose           the crash tool, just before exit status 3
//	crash-on-call: ...            CrashOnCall, just before exit status 3
//	fatal: missing API key        ExitEarly, before exit status 1
//
// # Hostile modes
//
// hostile.go adds modes aimed at the client's robustness: null-id-error
// (an error with a null id instead of an answer), deep-response (a result
// nested beyond encoding/json's limit), deep-schema (a tool whose input
// schema nests MCPDECK_FAKE_DEPTH levels) and bad-utf8 (log data with bytes
// that are not UTF-8).
//
// An unknown mode or a malformed MCPDECK_FAKE_* value makes the server explain itself
// on stderr and exit 2.
//
// # The modern era
//
// [Modern] is a hand-written 2026-07-28 server (modern.go) with modes that
// each add one defect; [LegacySilentDiscover] and
// [LegacyDiscoverInvalidParams] are legacy servers answering a
// server/discover probe the ways real ones do (Normal answers -32601).
// [GoSDKModern] and [GoSDKModernHTTP] run the official go-sdk server, and
// [TSServerStdio], [TSServerHTTP] and [TSClient] the TypeScript SDK v2
// peer scripts in peers/ (see peers.go for how node and the pinned
// packages are found).
//
// The servers speak MCP over stdio by hand: newline-delimited JSON-RPC 2.0 written as
// raw bytes, with no JSON-RPC library, so each defect is exactly the one its mode names
// and nothing else. Every mode is the "normal" server (see [Normal]) plus one defect.
// The package is for Unix: it relies on process groups, signals and /proc.
package jsonrpctest
