package auth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"mcpdeck/internal/cause"
)

// registration is a client registered dynamically (RFC 7591) with one
// authorization server, remembered per issuer so the next login reuses it
// (and the server does not fill up with one client per login).
type registration struct {
	Issuer          string    `json:"issuer"`
	ClientID        string    `json:"clientId"`
	ClientSecret    string    `json:"clientSecret,omitempty"`
	RedirectURI     string    `json:"redirectUri"`
	AuthMethod      string    `json:"authMethod,omitempty"`
	SecretExpiresAt time.Time `json:"secretExpiresAt,omitzero"`
}

func registrationKey(issuer string) string { return "client " + issuer }

// registration loads the remembered registration with issuer, or nil.
func (m *Manager) registration(issuer string) (*registration, error) {
	store, err := m.Store()
	if err != nil {
		return nil, err
	}
	var r registration
	found, err := store.get(registrationKey(issuer), &r)
	if err != nil || !found {
		return nil, err
	}
	m.secret(r.ClientSecret)
	return &r, nil
}

// registeredPort is the redirect port of the remembered registration with
// issuer, so a login can bind the port that client was registered with;
// 0 when there is none.
func (m *Manager) registeredPort(issuer string) int {
	r, err := m.registration(issuer)
	if err != nil || r == nil {
		return 0
	}
	u, err := url.Parse(r.RedirectURI)
	if err != nil {
		return 0
	}
	p, _ := strconv.Atoi(u.Port())
	return p
}

// identity is the client a login acts as.
type identity struct {
	id, secret string
	source     string
	style      oauth2.AuthStyle
	// fresh: a dynamic registration made for this login, not remembered
	// from an earlier one (only a remembered one can be stale).
	fresh bool
}

// identify picks the client identity in the specification's order:
// pre-registered (the server's "oauth" block), a Client ID Metadata
// Document where the authorization server supports them, dynamic client
// registration where it offers an endpoint.
func (m *Manager) identify(ctx context.Context, t Target, md *Metadata, redirectURI string) (identity, error) {
	s := t.settings()
	asm := md.AuthServer
	if s.ClientID != "" {
		m.secret(s.ClientSecret)
		style := oauth2.AuthStyleInParams // a public client, or a private key's assertion
		if s.ClientSecret != "" {
			style = authStyle(asm.TokenEndpointAuthMethodsSupported)
		}
		return identity{id: s.ClientID, secret: s.ClientSecret, source: clientPreregistered, style: style}, nil
	}
	doc := s.ClientMetadataURL
	if doc == "" {
		doc = m.opts.ClientMetadataURL
	}
	if doc != "" && asm.ClientIDMetadataDocumentSupported {
		return identity{id: doc, source: clientMetadataDoc, style: oauth2.AuthStyleInParams}, nil
	}
	if asm.RegistrationEndpoint == "" {
		return identity{}, fmt.Errorf("logging in to %q at %s: %w: it offers no dynamic client registration and no client id metadata document support mcpdeck can use; register a client with it and add \"oauth\": {\"clientId\": \"…\"} to the server's configuration",
			t.Name, md.Issuer, ErrRegistration)
	}
	reg, err := m.registration(md.Issuer)
	if err != nil {
		return identity{}, err
	}
	now := m.opts.Now()
	fresh := false
	if reg == nil || reg.RedirectURI != redirectURI || (!reg.SecretExpiresAt.IsZero() && now.After(reg.SecretExpiresAt)) {
		reg, err = m.register(ctx, t, md, redirectURI)
		if err != nil {
			return identity{}, err
		}
		fresh = true
	}
	style := oauth2.AuthStyleInParams
	if reg.ClientSecret != "" {
		style = authMethodStyle(reg.AuthMethod)
	}
	return identity{id: reg.ClientID, secret: reg.ClientSecret, source: clientDynamic, style: style, fresh: fresh}, nil
}

// forgetRegistration drops the remembered registration with issuer when
// it is still clientID (a concurrent login may have replaced it).
func (m *Manager) forgetRegistration(issuer, clientID string) error {
	reg, err := m.registration(issuer)
	if err != nil || reg == nil || reg.ClientID != clientID {
		return err
	}
	store, err := m.Store()
	if err != nil {
		return err
	}
	return store.delete(registrationKey(issuer))
}

// register runs dynamic client registration with go-sdk's oauthex and
// remembers the result.
func (m *Manager) register(ctx context.Context, t Target, md *Metadata, redirectURI string) (*registration, error) {
	meta := &oauthex.ClientRegistrationMetadata{
		RedirectURIs:            []string{redirectURI},
		TokenEndpointAuthMethod: "none",
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		ClientName:              m.opts.ClientName,
		ApplicationType:         "native",
	}
	resp, err := oauthex.RegisterClient(ctx, md.AuthServer.RegistrationEndpoint, meta, m.post)
	if err != nil {
		var re *oauthex.ClientRegistrationError
		why := cause.Of(errors.Unwrap(err))
		if errors.As(err, &re) {
			why = fmt.Errorf("%s %s", re.ErrorCode, oneLine(re.ErrorDescription))
		} else if why == nil {
			why = err
		}
		return nil, fmt.Errorf("registering mcpdeck with %s for %q: %w: %v; register a client by hand and add \"oauth\": {\"clientId\": \"…\"} to the server's configuration",
			md.Issuer, t.Name, ErrRegistration, why)
	}
	m.secret(resp.ClientSecret)
	reg := &registration{
		Issuer: md.Issuer, ClientID: resp.ClientID, ClientSecret: resp.ClientSecret, RedirectURI: redirectURI,
		AuthMethod: resp.TokenEndpointAuthMethod, SecretExpiresAt: resp.ClientSecretExpiresAt,
	}
	store, err := m.Store()
	if err != nil {
		return nil, err
	}
	if err := store.put(registrationKey(md.Issuer), reg); err != nil {
		return nil, err
	}
	return reg, nil
}

// authStyle picks how a confidential client authenticates at the token
// endpoint: client_secret_post where offered (OAuth 2.1's preference), else
// client_secret_basic, else let x/oauth2 find out.
func authStyle(supported []string) oauth2.AuthStyle {
	switch {
	case slices.Contains(supported, "client_secret_post"):
		return oauth2.AuthStyleInParams
	case slices.Contains(supported, "client_secret_basic"):
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleAutoDetect
}

func authMethodStyle(method string) oauth2.AuthStyle {
	switch method {
	case "client_secret_post", "none":
		return oauth2.AuthStyleInParams
	default: // RFC 7591's default is client_secret_basic
		return oauth2.AuthStyleInHeader
	}
}
