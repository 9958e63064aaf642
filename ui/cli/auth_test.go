package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/auth/authtest"
)

// authEnv isolates the binary's token storage in a temporary state
// directory (file storage, never the developer's keyring) and makes this
// test binary the browser that follows the authorization URL.
func authEnv(t *testing.T) (env []string, stateDir string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stateDir = t.TempDir()
	return []string{
		"XDG_STATE_HOME=" + stateDir,
		auth.StorageEnv + "=file",
		"BROWSER=" + exe,
		authtest.BrowserEnv + "=1",
		"GORACE=atexit_sleep_ms=0", // the browser is this test binary: no second's sleep at exit under -race
	}, stateDir
}

func assertNoTokens(t *testing.T, as *authtest.AuthServer, outputs ...string) {
	t.Helper()
	all := strings.Join(outputs, "\n")
	for _, tok := range as.IssuedTokens() {
		if strings.Contains(all, tok) {
			t.Fatalf("a token appears in the output")
		}
	}
}

func TestAuthCommandsEndToEnd(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{Scopes: []string{"files:read"}})
	env, state := authEnv(t)

	r := runBin(t, "", env, "", "auth", "status", "--url", rs.URL, "--json")
	if r.code != 0 {
		t.Fatalf("status: %d %s", r.code, r.stderr)
	}
	var sts []auth.Status
	if err := json.Unmarshal([]byte(r.stdout), &sts); err != nil || len(sts) != 1 || sts[0].TokenPresent || sts[0].Storage != auth.StorageFile {
		t.Fatalf("status before login = %s (%v)", r.stdout, err)
	}

	login := runBin(t, "", env, "", "auth", "login", "--url", rs.URL)
	if login.code != 0 {
		t.Fatalf("login: exit %d\nstdout %s\nstderr %s", login.code, login.stdout, login.stderr)
	}
	if !strings.Contains(login.stderr, as.URL+"/authorize?") || !strings.Contains(login.stdout, "logged in to adhoc") {
		t.Fatalf("login output:\nstdout %s\nstderr %s", login.stdout, login.stderr)
	}

	r = runBin(t, "", env, "", "auth", "status", "--url", rs.URL, "--json")
	sts = nil
	if err := json.Unmarshal([]byte(r.stdout), &sts); err != nil || len(sts) != 1 {
		t.Fatalf("status: %s (%v)", r.stdout, err)
	}
	st := sts[0]
	if !st.TokenPresent || st.Expiry == nil || st.AuthorizationServer != as.Issuer || st.ClientSource != "dcr" || !st.Refreshable ||
		st.StoragePath != filepath.Join(state, "mcpdeck", "oauth.json") {
		t.Fatalf("status after login = %+v", st)
	}
	fi, err := os.Stat(st.StoragePath)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v", err, fi.Mode().Perm())
	}
	human := runBin(t, "", env, "", "auth", "status", "--url", rs.URL)
	if !strings.Contains(human.stdout, "token valid until") || !strings.Contains(human.stdout, "files:read") {
		t.Fatalf("human status: %s", human.stdout)
	}

	out := runBin(t, "", env, "", "auth", "logout", "--url", rs.URL)
	if out.code != 0 {
		t.Fatalf("logout: %d %s", out.code, out.stderr)
	}
	r2 := runBin(t, "", env, "", "auth", "status", "--url", rs.URL, "--json")
	if !strings.Contains(r2.stdout, `"tokenPresent": false`) {
		t.Fatalf("status after logout: %s", r2.stdout)
	}
	data, _ := os.ReadFile(st.StoragePath)
	assertNoTokens(t, as, r.stdout, r.stderr, login.stdout, login.stderr, human.stdout, out.stdout, out.stderr, r2.stdout, string(data))
}

func TestAuthCommandsConfiguredServer(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"svc": "svc-secret-abcdef123"}})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	env, _ := authEnv(t)
	env = append(env, "SVC_SECRET=svc-secret-abcdef123")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	os.WriteFile(cfg, []byte(`{"mcpServers": {
		"prot": {"url": "`+rs.URL+`", "oauth": {"clientId": "svc", "clientSecret": "${env:SVC_SECRET}", "grantType": "client_credentials"}},
		"local": {"command": "true"}}}`), 0o600)

	login := runBin(t, dir, env, "", "--config", cfg, "auth", "login", "prot")
	if login.code != 0 || !strings.Contains(login.stdout, "logged in to prot") || strings.Contains(login.stderr, "/authorize") {
		t.Fatalf("client credentials login: %d\n%s\n%s", login.code, login.stdout, login.stderr)
	}
	status := runBin(t, dir, env, "", "--config", cfg, "auth", "status", "--json")
	var sts []auth.Status
	if err := json.Unmarshal([]byte(status.stdout), &sts); err != nil || len(sts) != 1 || sts[0].Server != "prot" || sts[0].GrantType != "client_credentials" {
		t.Fatalf("status of every remote server: %s (%v)", status.stdout, err)
	}
	stdio := runBin(t, dir, env, "", "--config", cfg, "auth", "login", "local")
	if stdio.code != ExitUsage || !strings.Contains(stdio.stderr, "runs on stdio") {
		t.Fatalf("login to a stdio server: %d %s", stdio.code, stdio.stderr)
	}
	usage := runBin(t, dir, env, "", "--config", cfg, "auth", "login")
	if usage.code != ExitUsage {
		t.Fatalf("login without a server: %d %s", usage.code, usage.stderr)
	}
	all := login.stdout + login.stderr + status.stdout + status.stderr
	if strings.Contains(all, "svc-secret-abcdef123") {
		t.Fatal("the client secret appears in the output")
	}
	assertNoTokens(t, as, all)
}

// TestAuthLoginInterrupted: a login waiting for the browser ends with exit
// 4 on ctrl+c (SIGINT), and stores nothing.
func TestAuthLoginInterrupted(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	env, _ := authEnv(t)
	env = append(env, "BROWSER=true") // a browser nobody uses
	cmd, cancel := binCommand(t, time.Minute, "auth", "login", "--url", rs.URL)
	defer cancel()
	cmd.Env = testEnv(t, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var seen strings.Builder
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "waiting for the browser") {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
	}
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != ExitTimeout {
		t.Fatalf("exit = %v, want %d\n%s", err, ExitTimeout, seen.String())
	}
	if !strings.Contains(seen.String(), "cancelled") {
		t.Fatalf("stderr does not say the login was cancelled:\n%s", seen.String())
	}
	r := runBin(t, "", env, "", "auth", "status", "--url", rs.URL, "--json")
	if !strings.Contains(r.stdout, `"tokenPresent": false`) {
		t.Fatalf("a token was stored: %s", r.stdout)
	}
}

// A headless command meeting a server that needs a login fails with exit 3
// and says how to log in; with --login it logs in inline, carries on, and
// stores the token, so the next command needs no login.
func TestHeadlessCommandsLogInWhenAsked(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	env, _ := authEnv(t)

	r := runBin(t, "", env, "", "call", "--url", rs.URL, "echo", `{"text":"hi"}`)
	// The ad-hoc server has no name to log in by: the command to run names
	// its URL ("mcpdeck auth login adhoc" is "no server adhoc", exit 2).
	if r.code != ExitConnection || !strings.Contains(r.stderr, `run "mcpdeck auth login --url `+rs.URL+`"`) || !strings.Contains(r.stderr, "needs a login") {
		t.Fatalf("without a token: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, "", env, "", "call", "--login", "--url", rs.URL, "echo", `{"text":"hi"}`)
	if r.code != 0 || !strings.Contains(r.stdout, "hi") || !strings.Contains(r.stderr, as.URL+"/authorize?") {
		t.Fatalf("--login: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r2 := runBin(t, "", env, "", "call", "--url", rs.URL, "echo", `{"text":"again"}`)
	if r2.code != 0 || !strings.Contains(r2.stdout, "again") || strings.Contains(r2.stderr, "/authorize?") {
		t.Fatalf("with the stored token: exit %d\nstdout %s\nstderr %s", r2.code, r2.stdout, r2.stderr)
	}
	assertNoTokens(t, as, r.stdout, r.stderr, r2.stdout, r2.stderr)
}

// TestAuthLoginTimeoutExits4: a login nobody finishes in the browser ends
// after --timeout with exit 4 (timeout or cancellation), as its --help
// says, names the timeout, and stores nothing.
func TestAuthLoginTimeoutExits4(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	env, _ := authEnv(t)
	env = append(env, "BROWSER=true") // a browser nobody uses
	r := runBin(t, "", env, "", "auth", "login", "--url", rs.URL, "--timeout", "1s")
	if r.code != ExitTimeout || !strings.Contains(r.stderr, "no authorization response within 1s") {
		t.Fatalf("exit %d, want %d\nstderr %s", r.code, ExitTimeout, r.stderr)
	}
	// The person did not finish the login: no hint that blames the server.
	if strings.Contains(r.stderr, "the server did not answer") {
		t.Fatalf("a login nobody finished is worded as a server that did not answer:\n%s", r.stderr)
	}
	help := runBin(t, "", nil, "", "auth", "login", "--help")
	if !strings.Contains(help.stdout, "4 interrupted or\ntimed out") {
		t.Fatalf("--help no longer says exit 4 means a timeout:\n%s", help.stdout)
	}
	st := runBin(t, "", env, "", "auth", "status", "--url", rs.URL, "--json")
	if !strings.Contains(st.stdout, `"tokenPresent": false`) {
		t.Fatalf("a token was stored: %s", st.stdout)
	}
}

// TestAuthLogoutForgetClient: --forget-client drops the registration as
// well as the token, and the next login registers anew.
func TestAuthLogoutForgetClient(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	env, state := authEnv(t)
	if r := runBin(t, "", env, "", "auth", "login", "--url", rs.URL); r.code != 0 {
		t.Fatalf("login: %d %s", r.code, r.stderr)
	}
	r := runBin(t, "", env, "", "auth", "logout", "--forget-client", "--url", rs.URL)
	if r.code != 0 || !strings.Contains(r.stdout, "forgot mcpdeck's registration with "+as.Issuer) {
		t.Fatalf("logout --forget-client: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	data, _ := os.ReadFile(filepath.Join(state, "mcpdeck", "oauth.json"))
	if strings.Contains(string(data), "dcr-client-1") {
		t.Fatalf("the registration is still stored:\n%s", data)
	}
	if r := runBin(t, "", env, "", "auth", "login", "--url", rs.URL); r.code != 0 || as.Registrations() != 2 {
		t.Fatalf("login after --forget-client: %d, %d registrations\n%s", r.code, as.Registrations(), r.stderr)
	}
}

// auth status without a server lists the tokens stored for --url servers
// too, by URL: it said "no remote servers configured" while one was
// stored (found by qa). After logout it is gone again.
func TestAuthStatusListsStoredAdHocTokens(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	env, _ := authEnv(t)
	env = append(env, "XDG_CONFIG_HOME="+t.TempDir())
	dir := t.TempDir()
	if login := runBin(t, dir, env, "", "auth", "login", "--url", rs.URL); login.code != 0 {
		t.Fatalf("login: exit %d\n%s", login.code, login.stderr)
	}
	// The ad-hoc server has one name in the table and in --json: the one
	// call --url and every other command give it, its URL beside it.
	r := runBin(t, dir, env, "", "auth", "status")
	if r.code != 0 || !strings.Contains(r.stdout, "token valid until") || strings.Contains(r.stdout, "no remote servers") {
		t.Fatalf("status: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	rows := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(rows) != 2 || !strings.HasPrefix(rows[0], "NAME ") || strings.Fields(rows[1])[0] != adHocName || strings.Fields(rows[1])[1] != rs.URL {
		t.Fatalf("status table does not name the server %s with its URL:\n%s", adHocName, r.stdout)
	}
	r = runBin(t, dir, env, "", "auth", "status", "--json")
	var sts []auth.Status
	if err := json.Unmarshal([]byte(r.stdout), &sts); err != nil || len(sts) != 1 || !sts[0].TokenPresent || sts[0].Resource != rs.URL || sts[0].Server != adHocName {
		t.Fatalf("status --json = %s (%v)", r.stdout, err)
	}
	// servers --url names it so too, as call --url and the others do.
	call := runBin(t, dir, env, "", "servers", "--url", rs.URL, "--json")
	if out := decodeServers(t, call); len(out.Servers) != 1 || out.Servers[0].Name != sts[0].Server {
		t.Fatalf("servers --url named the server %+v, auth status %q", out.Servers, sts[0].Server)
	}
	if out := runBin(t, dir, env, "", "auth", "logout", "--url", rs.URL); out.code != 0 {
		t.Fatalf("logout: %d %s", out.code, out.stderr)
	}
	if r = runBin(t, dir, env, "", "auth", "status"); !strings.Contains(r.stdout, "no remote servers configured") {
		t.Fatalf("status after logout: %s", r.stdout)
	}
	assertNoTokens(t, as, r.stdout, r.stderr)
}
