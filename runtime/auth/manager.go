package auth

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"mcpdeck/config"
)

// Defaults the zero Options values stand for.
const (
	// DefaultLoginTimeout bounds the wait for the browser's redirect.
	DefaultLoginTimeout = 5 * time.Minute
	// DefaultRefreshSkew is how long before its expiry a token is refreshed,
	// so a request never leaves with a token about to lapse in transit.
	DefaultRefreshSkew = time.Minute
	// DefaultClientName is the client_name registered with authorization
	// servers and shown on their consent pages.
	DefaultClientName = "mcpdeck"
)

// Target is one protected server as the Manager sees it. Tokens are stored
// per target: the server name and its canonical URL together, so two
// configured names for one URL, or one name moved to another URL, never
// share a token.
type Target struct {
	// Name is the configured server name (for ad-hoc servers, any stable
	// name the face chooses).
	Name string
	// URL is the MCP endpoint.
	URL string
	// OAuth is the server's "oauth" block; nil means none.
	OAuth *config.OAuth
	// Headers are the server's configured headers (mcp.json "headers": an
	// API gateway's key, a tenant). The login's probe sends them, as every
	// connection to the server does, and only to its origin (the
	// transport's redirect policy); nothing else here sends them.
	Headers map[string]string
	// LoginCommand is what a person runs to log in, quoted in
	// NeedsLoginError; "" means "mcpdeck auth login NAME".
	LoginCommand string
	// HeadersAdvice says where a static credential for the server goes
	// (config.Server.HeadersAdvice); "" means under "headers" in its entry.
	HeadersAdvice string
}

// headersAdvice is t's HeadersAdvice or the default.
func (t Target) headersAdvice() string {
	if t.HeadersAdvice != "" {
		return t.HeadersAdvice
	}
	return config.Server{}.HeadersAdvice()
}

// TargetOf is the target of a configured server.
func TargetOf(s config.Server) Target {
	return Target{Name: s.Name, URL: s.URL, OAuth: s.OAuth, Headers: s.Headers, HeadersAdvice: s.HeadersAdvice()}
}

func (t Target) key() string {
	u, err := url.Parse(t.URL)
	c := t.URL
	if err == nil {
		c = canonical(u)
	}
	return tokenPrefix + t.Name + " " + c
}

func (t Target) settings() config.OAuth {
	if t.OAuth == nil {
		return config.OAuth{GrantType: config.GrantAuthorizationCode}
	}
	o := *t.OAuth
	if o.GrantType == "" {
		o.GrantType = config.GrantAuthorizationCode
	}
	return o
}

// automatic reports whether t's grant needs no person: client
// credentials, enterprise-managed authorization, or a workload's
// assertion.
func (t Target) automatic() bool {
	s := t.settings()
	return s.GrantType == config.GrantClientCredentials || s.IdP != nil || s.AssertionFile != ""
}

func (t Target) loginCommand() string {
	if t.LoginCommand != "" {
		return t.LoginCommand
	}
	return "mcpdeck auth login " + t.Name
}

// loginCommand is t's, else the one Options.LoginCommand words for it.
func (m *Manager) loginCommand(t Target) string {
	if t.LoginCommand == "" && m.opts.LoginCommand != nil {
		if c := m.opts.LoginCommand(t); c != "" {
			return c
		}
	}
	return t.loginCommand()
}

// Options configure a Manager.
type Options struct {
	// Store keeps tokens and registrations; nil means OpenStore with
	// default options, and a failure to open it is reported by the first
	// call that needs it.
	Store *Store
	// HTTPClient sends discovery, registration and token requests; nil
	// means a client over net/http's default transport.
	HTTPClient *http.Client
	// OnSecret is called with every access token, refresh token and client
	// secret as it is issued or loaded, so the caller can teach its
	// scrubber (config.AddSecret) before the value can reach any output.
	OnSecret func(string)
	// OnURL is told every authorization URL before the browser opens, so
	// the faces can print or show it (and offer to copy it) for machines
	// without a browser. It must return quickly.
	OnURL func(server, url string)
	// LoginCommand words what a person runs to log in to a target that
	// names none itself (Target.LoginCommand), for messages: a face that
	// connects servers it has no name for (an ad-hoc --url) says how they
	// are logged in to. nil, or "", means "mcpdeck auth login NAME".
	LoginCommand func(Target) string
	// OpenURL opens the authorization URL; nil means OpenBrowser. Its
	// failure is not fatal: the URL was reported through OnURL.
	OpenURL func(url string) error
	// ClientName is registered with authorization servers; "" means
	// DefaultClientName.
	ClientName string
	// ClientMetadataURL is mcpdeck's Client ID Metadata Document, used
	// where a server's "oauth" block names none.
	ClientMetadataURL string
	// LoginTimeout bounds the wait for the browser; 0 means
	// DefaultLoginTimeout.
	LoginTimeout time.Duration
	// RefreshSkew: see DefaultRefreshSkew; 0 means that.
	RefreshSkew time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Manager obtains, stores, refreshes and forgets tokens for protected MCP
// servers. One Manager serves the whole process: the runtime's transports,
// the CLI's auth commands and the TUI's login key share its cache, so a
// login in one place is seen everywhere. It is safe for concurrent use.
//
// Concurrency: no lock is ever held across network I/O or the browser. A
// refresh, a login and a discovery each run once per server however many
// requests need them (flights): the first starts it, the others join, and
// each waiter returns when its own context ends. Status reads only memory
// and the token store, so it answers at once even while a login waits for
// the browser.
type Manager struct {
	opts   Options
	client *http.Client // discovery: follows redirects as go-sdk's discovery allows
	post   *http.Client // token and registration requests: same-origin redirects only

	storeOnce sync.Once
	store     *Store
	storeErr  error

	flights flights

	mu      sync.Mutex // guards servers (the map, not the states) and nonces
	servers map[string]*serverState
	nonces  map[string]string // origin → the DPoP nonce it gave last
}

// serverState is one target's cached view. Its mutex guards the fields
// only for the moment of reading or replacing them; the I/O that produces
// new values runs in flights, outside it.
type serverState struct {
	mu         sync.Mutex
	loaded     bool         // tok was read from the store
	tok        *tokenRecord // nil: no token
	md         *Metadata    // the latest discovery result, nil until needed
	challenge  *Challenge   // the last challenge the server sent
	wantScopes []string     // scopes a step-up challenge asked for
}

// snapshot returns the fields under the lock.
func (st *serverState) snapshot() (tok *tokenRecord, md *Metadata, ch *Challenge, want []string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.tok, st.md, st.challenge, slices.Clone(st.wantScopes)
}

// NewManager returns a Manager with opts.
func NewManager(opts Options) *Manager {
	if opts.ClientName == "" {
		opts.ClientName = DefaultClientName
	}
	if opts.LoginTimeout <= 0 {
		opts.LoginTimeout = DefaultLoginTimeout
	}
	if opts.RefreshSkew <= 0 {
		opts.RefreshSkew = DefaultRefreshSkew
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.OpenURL == nil {
		opts.OpenURL = OpenBrowser
	}
	client := opts.HTTPClient
	if client == nil {
		client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	post := *client
	post.CheckRedirect = sameOriginRedirects
	return &Manager{opts: opts, client: client, post: &post, store: opts.Store, servers: map[string]*serverState{}}
}

// Store returns the manager's token store, opening it on first use.
func (m *Manager) Store() (*Store, error) {
	m.storeOnce.Do(func() {
		if m.store == nil {
			m.store, m.storeErr = OpenStore(StoreOptions{})
		}
	})
	return m.store, m.storeErr
}

func (m *Manager) state(t Target) *serverState {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := t.key()
	st := m.servers[k]
	if st == nil {
		st = &serverState{}
		m.servers[k] = st
	}
	return st
}

// secret tells OnSecret about v.
func (m *Manager) secret(vs ...string) {
	if m.opts.OnSecret == nil {
		return
	}
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			m.opts.OnSecret(v)
		}
	}
}

// token returns t's token, reading the store the first time. The store
// is read without st.mu, so a slow keyring never blocks another reader of
// the cached state; the first load to finish wins.
func (m *Manager) token(t Target) (*serverState, *tokenRecord, error) {
	st := m.state(t)
	st.mu.Lock()
	loaded, tok := st.loaded, st.tok
	st.mu.Unlock()
	if loaded {
		return st, tok, nil
	}
	s := t.settings()
	m.secret(s.ClientSecret)
	if s.IdP != nil {
		m.secret(s.IdP.ClientSecret, s.IdP.IDToken)
	}
	store, err := m.Store()
	if err != nil {
		return st, nil, err
	}
	var rec tokenRecord
	found, err := store.get(t.key(), &rec)
	if err != nil {
		return st, nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.loaded {
		st.loaded = true
		if found && rec.AccessToken != "" {
			m.secret(rec.AccessToken, rec.RefreshToken)
			st.tok = &rec
		}
	}
	return st, st.tok, nil
}

// save stores rec as t's token.
func (m *Manager) save(t Target, rec *tokenRecord) error {
	m.secret(rec.AccessToken, rec.RefreshToken)
	st := m.state(t)
	st.mu.Lock()
	st.tok, st.loaded, st.wantScopes = rec, true, nil
	st.mu.Unlock()
	store, err := m.Store()
	if err != nil {
		return err
	}
	return store.put(t.key(), rec)
}

// drop forgets t's token in memory and in the store; with only set, only
// if the token is still that one (a refresh may have replaced it).
func (m *Manager) drop(t Target, only *tokenRecord) error {
	st := m.state(t)
	st.mu.Lock()
	if only != nil && st.tok != only {
		st.mu.Unlock()
		return nil
	}
	st.tok, st.loaded = nil, true
	st.mu.Unlock()
	store, err := m.Store()
	if err != nil {
		return err
	}
	return store.delete(t.key())
}
