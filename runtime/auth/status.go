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
	// LoginRunning: a login (or another grant) for this server is in
	// progress in this process.
	LoginRunning bool `json:"loginRunning,omitempty"`
	// Storage is StorageKeyring or StorageFile; StoragePath the file.
	Storage     StorageKind `json:"storage"`
	StoragePath string      `json:"storagePath,omitempty"`
}

// Status reports t's login without any network traffic. It reads only
// memory and the token store, never waiting for a login or a refresh in
// progress (LoginRunning tells about those).
func (m *Manager) Status(t Target) (*Status, error) {
	_, rec, err := m.token(t)
	if err != nil {
		return nil, err
	}
	store, err := m.Store()
	if err != nil {
		return nil, err
	}
	s := &Status{Server: t.Name, Resource: t.URL, Storage: store.Kind()}
	if store.Kind() == StorageFile {
		s.StoragePath = store.Where()
	}
	s.LoginRunning = m.flights.running("obtain " + t.key())
	if rec == nil {
		return s, nil
	}
	s.TokenPresent = true
	if !rec.Expiry.IsZero() {
		e := rec.Expiry
		s.Expiry = &e
		s.Expired = m.opts.Now().After(e)
	}
	s.Refreshable = rec.refreshable()
	s.Scopes = rec.Scopes
	s.AuthorizationServer = rec.Issuer
	s.ClientID, s.ClientSource, s.GrantType = rec.ClientID, rec.ClientSource, rec.GrantType
	return s, nil
}
