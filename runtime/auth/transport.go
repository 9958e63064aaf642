package auth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"mcpdeck/jsonrpc/mcphttp"
)

// Transport is the http.RoundTripper that puts MCP authorization under the
// HTTP transport (mcphttp.Options.Transport). For requests to the protected
// server's origin it adds the bearer token; it refreshes the token shortly
// before expiry and when the server answers 401; on 403 insufficient_scope
// it steps up once per request. When no usable token exists it fails the
// request with a *NeedsLoginError (or, with Interactive, logs in through
// the browser first). Requests to any other origin, including redirects
// the client follows, go out untouched and never carry the token.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Manager owns the tokens.
	Manager *Manager
	// Target is the protected server.
	Target Target
	// Interactive lets the transport run the browser login itself when no
	// token is usable, and for a step-up (a headless command's --login);
	// without it those end in a *NeedsLoginError.
	Interactive bool
}

var _ http.RoundTripper = (*Transport)(nil)

// RoundTrip sends req with authorization. It never modifies req.
func (tr *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := tr.Base
	if base == nil {
		base = http.DefaultTransport
	}
	// The token is bound to the target's origin and never leaves it.
	target, err := url.Parse(tr.Target.URL)
	if err != nil || !mcphttp.SameOrigin(req.URL, target) {
		return base.RoundTrip(req)
	}
	ctx := req.Context()
	m, t := tr.Manager, tr.Target
	tok, err := m.current(ctx, t)
	if err != nil {
		closeBody(req)
		return nil, refusedToSend(err)
	}
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	resp, err := tr.sendNonce(base, req, tok, false, replayable)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		ch := ParseChallenge(resp.StatusCode, resp.Header)
		buffer(resp)
		next, err := m.afterRejection(ctx, t, tok, ch, tr.Interactive)
		if err != nil {
			if tok == nil && ch.ResourceMetadata == "" && errors.Is(err, ErrDiscovery) {
				// No token was sent and the server points at no metadata,
				// nor publishes any: it wants a static credential (an API
				// key, an mcpdeck gateway's token), not an OAuth login.
				// Its own 401 says that best, so the caller gets it.
				return resp, nil
			}
			return nil, refusedToSend(err)
		}
		if !replayable {
			return nil, m.needsLogin(t, "the request cannot be resent with the new token; retry it")
		}
		if resp, err = tr.sendNonce(base, req, next, true, true); err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusUnauthorized {
			discard(resp)
			return nil, m.forget(t, next, "the server rejected a freshly issued token (is it meant for another resource?)")
		}
		return resp, nil
	case resp.StatusCode == http.StatusForbidden:
		ch := ParseChallenge(resp.StatusCode, resp.Header)
		if !ch.InsufficientScope() || !replayable {
			return resp, nil
		}
		discard(resp)
		next, err := m.stepUp(ctx, t, ch, tr.Interactive)
		if err != nil {
			return nil, refusedToSend(err)
		}
		if resp, err = tr.sendNonce(base, req, next, true, true); err != nil {
			return nil, err
		}
		if ch2 := ParseChallenge(resp.StatusCode, resp.Header); ch2.InsufficientScope() {
			discard(resp)
			return nil, fmt.Errorf("request to %q: %w (%w): still refused after authorizing scopes %s; the authorization server did not grant them",
				t.Name, ErrInsufficientScope, mcphttp.ErrUnauthorized, strings.Join(union(ch.Scopes, ch2.Scopes), " "))
		}
		return resp, nil
	}
	return resp, nil
}

// sendNonce is send that remembers the DPoP nonce the server answers
// with and, when the server refuses a DPoP proof for want of its nonce
// (RFC 9449 §9), sends the request once more with a proof carrying it.
func (tr *Transport) sendNonce(base http.RoundTripper, req *http.Request, tok *tokenRecord, again, replayable bool) (*http.Response, error) {
	resp, err := tr.send(base, req, tok, again)
	if err != nil {
		return nil, err
	}
	tr.Manager.setNonce(req.URL, resp.Header)
	if resp.StatusCode != http.StatusUnauthorized || tok == nil || tok.DPoPKey == "" || !replayable ||
		!ParseChallenge(resp.StatusCode, resp.Header).UseNonce() {
		return resp, nil
	}
	discard(resp)
	if resp, err = tr.send(base, req, tok, true); err != nil {
		return nil, err
	}
	tr.Manager.setNonce(req.URL, resp.Header)
	return resp, nil
}

// send sends req, or a clone with tok: "Authorization: Bearer", or for a
// DPoP-bound token "Authorization: DPoP" with a fresh proof. again sends
// it a second time, with a fresh body.
func (tr *Transport) send(base http.RoundTripper, req *http.Request, tok *tokenRecord, again bool) (*http.Response, error) {
	if tok == nil && !again {
		return base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	if again && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	switch {
	case tok == nil:
	case tok.DPoPKey != "":
		key, err := decodeDPoPKey(tok.DPoPKey)
		if err != nil {
			closeBody(r)
			return nil, fmt.Errorf("request to %q: %w: the token's DPoP key is unreadable (%v); log in again", tr.Target.Name, ErrStorage, err)
		}
		proof, err := dpopProof(key, req.Method, req.URL, tr.Manager.nonce(req.URL), tok.AccessToken, tr.Manager.opts.Now())
		if err != nil {
			closeBody(r)
			return nil, fmt.Errorf("request to %q: signing a DPoP proof: %w", tr.Target.Name, err)
		}
		r.Header.Set("Authorization", "DPoP "+tok.AccessToken)
		r.Header.Set("DPoP", proof)
	default:
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return base.RoundTrip(r)
}

// buffer reads up to 64 KiB of resp's body and closes the connection's
// body, so resp can still be handed on after a second exchange.
func buffer(resp *http.Response) {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
}

func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// closeBody honours the RoundTripper contract of closing the body even
// when the request is not sent.
func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// current returns the token to send, refreshing it when it is about to
// expire; nil when there is none (the request then goes without, and a
// 401 tells whether the server needs one). A refresh the authorization
// server refuses drops the token.
func (m *Manager) current(ctx context.Context, t Target) (*tokenRecord, error) {
	_, rec, err := m.token(t)
	if err != nil || rec == nil || !rec.expiring(m.opts.Now(), m.opts.RefreshSkew) {
		return rec, err
	}
	if !rec.refreshable() {
		return rec, nil // let the server judge; a 401 leads to a login
	}
	next, err := m.refreshOnce(ctx, t, rec)
	if err != nil && refused(err) {
		return nil, nil
	}
	return next, err
}

// refreshOnce refreshes rec, once however many requests found it expiring
// or rejected at the same time: they share one token request. A refusal
// drops rec.
func (m *Manager) refreshOnce(ctx context.Context, t Target, rec *tokenRecord) (*tokenRecord, error) {
	v, err := m.flights.do(ctx, "refresh "+t.key(), func(ctx context.Context) (any, error) {
		st := m.state(t)
		st.mu.Lock()
		cur := st.tok
		st.mu.Unlock()
		if cur != nil && cur != rec && !cur.expiring(m.opts.Now(), m.opts.RefreshSkew) {
			return cur, nil // a request before us already refreshed it
		}
		next, err := m.refresh(ctx, t, rec)
		if err != nil {
			if refused(err) {
				_ = m.drop(t, rec)
				if invalidClient(err) {
					_ = m.forgetRegistration(rec.Issuer, rec.ClientID)
				}
			}
			return nil, err
		}
		return next, m.save(t, next)
	})
	if err != nil {
		return nil, err
	}
	return v.(*tokenRecord), nil
}

// afterRejection handles a 401: a token the server rejected is refreshed
// (unless another request already replaced it, or the server now names
// another authorization server); with none left, an automatic grant
// (client credentials, enterprise-managed) or, interactive, a browser
// login gets a new one; else the answer is a NeedsLoginError.
func (m *Manager) afterRejection(ctx context.Context, t Target, sent *tokenRecord, ch *Challenge, interactive bool) (*tokenRecord, error) {
	st := m.state(t)
	st.mu.Lock()
	st.challenge = ch
	cur := st.tok
	st.mu.Unlock()
	if cur != nil && cur != sent {
		return cur, nil // someone refreshed or logged in while this request was out
	}
	reason := "no token is stored"
	if sent != nil {
		reason = "the server rejected the stored token"
	}
	// Discover afresh: a rejected token may mean the server moved to
	// another authorization server (SEP-2352), whose metadata says so.
	md, err := m.discoverOnce(ctx, t, ch)
	if err != nil {
		return nil, err
	}
	if md.Guessed && sent == nil && !interactive {
		// Nothing published, only the 2025-03-26 defaults guessed: as
		// likely a server that wants a static credential. Only a login
		// someone asked for tries the guess.
		return nil, fmt.Errorf("%s asked for authorization (HTTP 401), and %w: %s, nor authorization server metadata at its origin; "+
			"if the server wants a static credential, set it %s; else the server's metadata must be fixed, or `%s` tries the 2025-03-26 default endpoints",
			safeURL(t.URL), ErrDiscovery, md.Missing, t.headersAdvice(), m.loginCommand(t))
	}
	if sent != nil && sent.refreshable() && sent.Issuer == md.Issuer {
		next, err := m.refreshOnce(ctx, t, sent)
		if err == nil {
			return next, nil
		}
		if !refused(err) {
			return nil, err
		}
		reason = "the server rejected the stored token and refreshing it failed: " + err.Error()
	} else if sent != nil && sent.Issuer != md.Issuer {
		reason = fmt.Sprintf("the server now names authorization server %s, not %s, which issued the stored token", md.Issuer, sent.Issuer)
	}
	if sent != nil {
		_ = m.drop(t, sent)
	}
	if !interactive && !t.automatic() {
		return nil, m.needsLogin(t, reason)
	}
	return m.obtainOnce(ctx, t, md, interactive)
}

// stepUp handles a 403 insufficient_scope: re-authorize with the union of
// the granted scopes and the challenge's, by an automatic grant or
// (interactive) the browser; else a NeedsLoginError naming the scopes.
func (m *Manager) stepUp(ctx context.Context, t Target, ch *Challenge, interactive bool) (*tokenRecord, error) {
	st := m.state(t)
	st.mu.Lock()
	st.wantScopes = union(st.wantScopes, ch.Scopes)
	st.mu.Unlock()
	md, err := m.discoverOnce(ctx, t, ch)
	if err != nil {
		return nil, err
	}
	if !interactive && !t.automatic() {
		return nil, m.needsLogin(t, "the server needs more scopes than the token has")
	}
	return m.obtainOnce(ctx, t, md, interactive)
}

// forget drops a token the server rejected right after it was issued.
func (m *Manager) forget(t Target, rec *tokenRecord, reason string) error {
	_ = m.drop(t, rec)
	return m.needsLogin(t, reason)
}
