package auth

import (
	"time"
)

// Status is what mcpdeck knows about one server's login, for `auth status`
// and the TUI's overview. It never holds a token.
type Status struct {
	Server   string `json:"server"`
	Resource string `json:"resource"`
	// TokenPresent: a token is stored. Expired: it has lapsed (a request
	// will refresh it when Refreshable).
	TokenPresent bool       `json:"tokenPresent"`
	Expiry       *time.Time `json:"expiry,omitempty"`
	Expired      bool       `json:"expired"`
	Refreshable  bool       `json:"refreshable"`
	Scopes       []string   `json:"scopes,omitempty"`
	// AuthorizationServer is the issuer of the stored token.
	AuthorizationServer string `json:"authorizationServer,omitempty"`
	// ClientID and ClientSource ("preregistered", "cimd", "dcr") say which
	// client identity the token was issued to.
	ClientID     string `json:"clientId,omitempty"`
	ClientSource string `json:"clientSource,omitempty"`
	GrantType    string `json:"grantType,omitempty"`
	// Storage is StorageKeyring or StorageFile; StoragePath the file.
	Storage     StorageKind `json:"storage"`
	StoragePath string      `json:"storagePath,omitempty"`
}

// Status reports t's login without any network traffic.
func (m *Manager) Status(t Target) (*Status, error) {
	st := m.state(t)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := m.load(t, st); err != nil {
		return nil, err
	}
	return m.statusLocked(t, st)
}

func (m *Manager) statusLocked(t Target, st *serverState) (*Status, error) {
	store, err := m.Store()
	if err != nil {
		return nil, err
	}
	s := &Status{Server: t.Name, Resource: t.URL, Storage: store.Kind()}
	if store.Kind() == StorageFile {
		s.StoragePath = store.Where()
	}
	rec := st.tok
	if rec == nil {
		return s, nil
	}
	s.TokenPresent = true
	if !rec.Expiry.IsZero() {
		e := rec.Expiry
		s.Expiry = &e
		s.Expired = m.opts.Now().After(e)
	}
	s.Refreshable = rec.RefreshToken != "" || rec.GrantType == "client_credentials"
	s.Scopes = rec.Scopes
	s.AuthorizationServer = rec.Issuer
	s.ClientID, s.ClientSource, s.GrantType = rec.ClientID, rec.ClientSource, rec.GrantType
	return s, nil
}
