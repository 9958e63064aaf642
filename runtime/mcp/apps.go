package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"mcpdeck/internal/clip"
)

// MCP Apps: the io.modelcontextprotocol/ui extension (SEP-1865, stable
// revision 2026-01-26, npm @modelcontextprotocol/ext-apps). A tool links,
// through _meta.ui.resourceUri, to a ui:// resource whose body is HTML; a
// host renders it in a sandboxed iframe and speaks JSON-RPC with it over
// postMessage. What is here is the vocabulary: reading a tool's and a
// resource's _meta.ui, what is well-formed, and the app's document out
// of a resources/read result. The host itself is runtime/apphost.
const (
	// ExtensionUI is the extension's identifier, declared under
	// capabilities.extensions.
	ExtensionUI = "io.modelcontextprotocol/ui"
	// AppMIMEType is the MIME type of an app's HTML resource.
	AppMIMEType = "text/html;profile=mcp-app"
	// AppsVersion is the revision of the bridge protocol mcpdeck speaks
	// with a view (ui/initialize's protocolVersion).
	AppsVersion = "2026-01-26"
	// AppScheme starts every app resource's URI.
	AppScheme = "ui://"
	// MetaUIResourceURI is the deprecated flat _meta key for a tool's
	// resource URI, which hosts must still read (and servers built with
	// ext-apps still send, beside _meta.ui).
	MetaUIResourceURI = "ui/resourceUri"
)

// The visibilities of a tool (_meta.ui.visibility).
const (
	VisibleToModel = "model"
	VisibleToApp   = "app"
)

// Bounds on an app's HTML document, which check judges it by: over
// AppHTMLWarn it warns (a host loads it for every view), over AppHTMLMax
// it fails.
const (
	AppHTMLWarn = 5 << 20
	AppHTMLMax  = 16 << 20
)

// UICapability is what mcpdeck declares for the extension in its client
// capabilities: the one content type it renders.
func UICapability() json.RawMessage {
	return json.RawMessage(`{"mimeTypes":["` + AppMIMEType + `"]}`)
}

// UI reports whether the capabilities declare the apps extension for
// HTML apps: declared, with mimeTypes (required by the extension) naming
// the apps profile. A declaration without mimeTypes counts too: clients
// written before the field was required send {}.
func (c ClientCapabilities) UI() bool {
	raw, ok := c.Extensions[ExtensionUI]
	if !ok || isNull(raw) {
		return false
	}
	var s struct {
		MIMETypes []string `json:"mimeTypes"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	return s.MIMETypes == nil || slices.Contains(s.MIMETypes, AppMIMEType)
}

// ToolUI is what a tool's _meta says about its app.
type ToolUI struct {
	// ResourceURI is the ui:// resource the tool's results are rendered
	// with; "" for a tool without a UI.
	ResourceURI string `json:"resourceUri,omitempty"`
	// Visibility is _meta.ui.visibility as declared; nil when absent,
	// which means both "model" and "app".
	Visibility []string `json:"visibility,omitempty"`
	// Problems are what is malformed, each naming the field: a host
	// cannot use it as declared.
	Problems []string `json:"problems,omitempty"`
	// Notes are what is misplaced or inconsistent but still usable.
	Notes []string `json:"notes,omitempty"`
}

// toolUIMeta is the wire shape of a tool's _meta.ui, read leniently.
type toolUIMeta struct {
	ResourceURI json.RawMessage `json:"resourceUri"`
	Visibility  json.RawMessage `json:"visibility"`
	CSP         json.RawMessage `json:"csp"`
	Permissions json.RawMessage `json:"permissions"`
}

// ToolUIOf reads a tool's _meta: _meta.ui.resourceUri (else the
// deprecated _meta["ui/resourceUri"]) and _meta.ui.visibility. ok is
// false when the tool says nothing of apps.
func ToolUIOf(meta json.RawMessage) (ui ToolUI, ok bool) {
	if !isObject(meta) || (!bytes.Contains(meta, []byte(`"ui"`)) && !bytes.Contains(meta, []byte(MetaUIResourceURI))) {
		return ToolUI{}, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(meta, &m) != nil {
		return ToolUI{}, false
	}
	nested, hasNested := m["ui"]
	flat, hasFlat := m[MetaUIResourceURI]
	if (!hasNested || isNull(nested)) && (!hasFlat || isNull(flat)) {
		return ToolUI{}, false
	}
	var u toolUIMeta
	if hasNested && !isNull(nested) {
		if !isObject(nested) || json.Unmarshal(nested, &u) != nil {
			ui.Problems = append(ui.Problems, "_meta.ui is not an object")
		}
	}
	uri, where := u.ResourceURI, "_meta.ui.resourceUri"
	if len(uri) == 0 || isNull(uri) {
		uri, where = flat, `_meta["ui/resourceUri"]`
	}
	if len(uri) > 0 && !isNull(uri) {
		if json.Unmarshal(uri, &ui.ResourceURI) != nil {
			ui.Problems = append(ui.Problems, where+" is not a string")
		} else if !strings.HasPrefix(ui.ResourceURI, AppScheme) {
			ui.Problems = append(ui.Problems, fmt.Sprintf("%s %q does not start with %s", where, ui.ResourceURI, AppScheme))
		}
	}
	if len(u.ResourceURI) > 0 && len(flat) > 0 && !isNull(flat) {
		var f string
		if json.Unmarshal(flat, &f) == nil && f != ui.ResourceURI {
			ui.Notes = append(ui.Notes, fmt.Sprintf(`_meta.ui.resourceUri %q and the deprecated _meta["ui/resourceUri"] %q differ`, ui.ResourceURI, f))
		}
	}
	if len(u.Visibility) > 0 && !isNull(u.Visibility) {
		if json.Unmarshal(u.Visibility, &ui.Visibility) != nil {
			ui.Problems = append(ui.Problems, "_meta.ui.visibility is not an array of strings")
			ui.Visibility = nil
		} else {
			if ui.Visibility == nil {
				ui.Visibility = []string{}
			}
			for _, v := range ui.Visibility {
				if v != VisibleToModel && v != VisibleToApp {
					ui.Problems = append(ui.Problems, fmt.Sprintf("_meta.ui.visibility holds %q: only %q and %q are defined", v, VisibleToModel, VisibleToApp))
				}
			}
			if len(ui.Visibility) == 0 {
				ui.Problems = append(ui.Problems, `_meta.ui.visibility is empty: no one may call the tool (leave it out for ["model","app"])`)
			}
		}
	}
	if len(u.CSP) > 0 || len(u.Permissions) > 0 {
		ui.Notes = append(ui.Notes, "_meta.ui.csp and permissions belong on the ui:// resource (its resources/read contents), not the tool: hosts ignore them here")
	}
	return ui, true
}

// HasApp reports whether the tool's results are rendered by an app.
func (u ToolUI) HasApp() bool { return u.ResourceURI != "" }

// ModelVisible reports whether a model (an agent's tool list) may see and
// call the tool: the default, or "model" in visibility.
func (u ToolUI) ModelVisible() bool {
	return u.Visibility == nil || slices.Contains(u.Visibility, VisibleToModel)
}

// AppCallable reports whether an app of the tool's server may call it.
func (u ToolUI) AppCallable() bool {
	return u.Visibility == nil || slices.Contains(u.Visibility, VisibleToApp)
}

// AppOnly reports whether only apps may call the tool (visibility
// ["app"]): hosts leave it out of a model's tool list.
func (u ToolUI) AppOnly() bool { return !u.ModelVisible() && u.AppCallable() }

// VisibilityText is the visibility as shown: ["model","app"] (the
// default, when not declared), ["app"], ….
func (u ToolUI) VisibilityText() string {
	v := u.Visibility
	if v == nil {
		return `["model","app"] (default)`
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// AppCSP is a UI resource's _meta.ui.csp: the origins its document may
// reach, each list mapped onto CSP directives by the host.
type AppCSP struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	FrameDomains    []string `json:"frameDomains,omitempty"`
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`
}

// Empty reports whether the CSP allows no origin at all.
func (c AppCSP) Empty() bool {
	return len(c.ConnectDomains)+len(c.ResourceDomains)+len(c.FrameDomains)+len(c.BaseURIDomains) == 0
}

// AppPermissions are the browser features the extension lets an app ask
// for, by _meta.ui.permissions key, with the Permissions Policy feature
// each maps to.
var AppPermissions = []struct{ Key, Feature string }{
	{"camera", "camera"},
	{"microphone", "microphone"},
	{"geolocation", "geolocation"},
	{"clipboardWrite", "clipboard-write"},
}

// ResourceUI is a UI resource's _meta.ui: what its document needs from
// the host's sandbox.
type ResourceUI struct {
	CSP AppCSP `json:"csp"`
	// Permissions are the keys of _meta.ui.permissions mcpdeck knows (see
	// AppPermissions), in that order.
	Permissions   []string `json:"permissions,omitempty"`
	Domain        string   `json:"domain,omitempty"`
	PrefersBorder *bool    `json:"prefersBorder,omitempty"`
	// Problems are what is malformed, each naming the field; a malformed
	// CSP source is left out of CSP (a host never widens a policy for it).
	Problems []string `json:"problems,omitempty"`
	// Notes are what hosts ignore: lists and permissions the extension
	// does not define.
	Notes []string `json:"notes,omitempty"`
}

// resourceUIMeta is the wire shape of a resource's _meta.ui.
type resourceUIMeta struct {
	CSP           json.RawMessage `json:"csp"`
	Permissions   json.RawMessage `json:"permissions"`
	Domain        json.RawMessage `json:"domain"`
	PrefersBorder json.RawMessage `json:"prefersBorder"`
}

// cspSource is what mcpdeck accepts as one origin of a CSP list: a scheme
// with a host (a leading *. allowed, a port, a path), a scheme alone
// (data:, blob:), a bare host, or *. Anything that could add a directive
// or a keyword (';', ',', quotes, spaces) is not one. The same shapes the
// MCP Inspector accepts.
var cspSource = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:\*|[a-zA-Z][a-zA-Z0-9+.-]*:(?://(?:\*\.)?[A-Za-z0-9._~%!$&()*+=@:-]+(?::\d+)?(?:/[A-Za-z0-9._~%!$&()*+=@:/-]*)?)?|(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)$`)
})

// ValidCSPSource reports whether s is an origin a host may put into a
// policy as it is.
func ValidCSPSource(s string) bool { return len(s) <= 2048 && cspSource().MatchString(s) }

// ResourceUIOf reads a UI resource's _meta.ui (from its resources/read
// contents, or its resources/list entry).
func ResourceUIOf(meta json.RawMessage) ResourceUI {
	var ui ResourceUI
	raw := MetaValue(meta, "ui")
	if raw == nil {
		return ui
	}
	var m resourceUIMeta
	if !isObject(raw) || json.Unmarshal(raw, &m) != nil {
		ui.Problems = append(ui.Problems, "_meta.ui is not an object")
		return ui
	}
	if len(m.CSP) > 0 && !isNull(m.CSP) {
		ui.CSP = readCSP(m.CSP, &ui.Problems, &ui.Notes)
	}
	if len(m.Permissions) > 0 && !isNull(m.Permissions) {
		var perms map[string]json.RawMessage
		if !isObject(m.Permissions) || json.Unmarshal(m.Permissions, &perms) != nil {
			ui.Problems = append(ui.Problems, "_meta.ui.permissions is not an object")
		} else {
			for _, p := range AppPermissions {
				v, ok := perms[p.Key]
				if !ok {
					continue
				}
				if !isObject(v) {
					ui.Problems = append(ui.Problems, fmt.Sprintf("_meta.ui.permissions.%s is not an object: ask with {}", p.Key))
					continue
				}
				ui.Permissions = append(ui.Permissions, p.Key)
			}
			var unknown []string
			for k := range perms {
				if !slices.ContainsFunc(AppPermissions, func(p struct{ Key, Feature string }) bool { return p.Key == k }) {
					unknown = append(unknown, k)
				}
			}
			slices.Sort(unknown)
			for _, k := range unknown {
				ui.Notes = append(ui.Notes, fmt.Sprintf("_meta.ui.permissions.%s is not a permission the extension defines (camera, microphone, geolocation, clipboardWrite)", k))
			}
		}
	}
	if len(m.Domain) > 0 && !isNull(m.Domain) && json.Unmarshal(m.Domain, &ui.Domain) != nil {
		ui.Problems = append(ui.Problems, "_meta.ui.domain is not a string")
	}
	if len(m.PrefersBorder) > 0 && !isNull(m.PrefersBorder) {
		var b bool
		if json.Unmarshal(m.PrefersBorder, &b) != nil {
			ui.Problems = append(ui.Problems, "_meta.ui.prefersBorder is not a boolean")
		} else {
			ui.PrefersBorder = &b
		}
	}
	return ui
}

// readCSP reads _meta.ui.csp, keeping the well-formed sources.
func readCSP(raw json.RawMessage, problems, notes *[]string) AppCSP {
	var lists map[string]json.RawMessage
	if !isObject(raw) || json.Unmarshal(raw, &lists) != nil {
		*problems = append(*problems, "_meta.ui.csp is not an object")
		return AppCSP{}
	}
	var c AppCSP
	for _, f := range []struct {
		key  string
		dest *[]string
	}{{"connectDomains", &c.ConnectDomains}, {"resourceDomains", &c.ResourceDomains}, {"frameDomains", &c.FrameDomains}, {"baseUriDomains", &c.BaseURIDomains}} {
		v, ok := lists[f.key]
		if !ok || isNull(v) {
			continue
		}
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			*problems = append(*problems, fmt.Sprintf("_meta.ui.csp.%s is not an array of origins", f.key))
			continue
		}
		for _, it := range items {
			var s string
			if json.Unmarshal(it, &s) != nil {
				*problems = append(*problems, fmt.Sprintf("_meta.ui.csp.%s holds %s, not a string", f.key, clip.Text(string(it), 40)))
				continue
			}
			if !ValidCSPSource(s) {
				*problems = append(*problems, fmt.Sprintf("_meta.ui.csp.%s holds %q, not an origin such as https://cdn.example.com (left out of the policy)", f.key, clip.Text(s, 80)))
				continue
			}
			*f.dest = append(*f.dest, s)
		}
	}
	for k := range lists {
		switch k {
		case "connectDomains", "resourceDomains", "frameDomains", "baseUriDomains":
		default:
			*notes = append(*notes, fmt.Sprintf("_meta.ui.csp.%s is not a list the extension defines (connectDomains, resourceDomains, frameDomains, baseUriDomains): hosts ignore it", k))
		}
	}
	slices.Sort(*notes)
	return c
}

// ErrNotApp is wrapped by AppDocumentOf for a resource that is no app's
// document.
var ErrNotApp = errors.New("not an MCP App document")

// AppDocument is an app's HTML as resources/read returned it.
type AppDocument struct {
	URI      string
	MIMEType string
	HTML     []byte
	// UI is the content's _meta.ui (the CSP and permissions the host
	// enforces); empty when the contents carry none.
	UI ResourceUI
}

// AppDocumentOf finds the app's document for uri in a resources/read
// result: the contents with that URI (else the only contents), with the
// apps MIME type, as text or base64 blob.
func AppDocumentOf(raw json.RawMessage, uri string) (AppDocument, error) {
	var r ReadResourceResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return AppDocument{}, fmt.Errorf("%w: the resources/read result of %s does not decode: %v", ErrNotApp, uri, err)
	}
	var c *ResourceContents
	for i := range r.Contents {
		if r.Contents[i].URI == uri {
			c = &r.Contents[i]
			break
		}
	}
	if c == nil && len(r.Contents) == 1 {
		c = &r.Contents[0]
	}
	if c == nil {
		return AppDocument{}, fmt.Errorf("%w: resources/read of %s returned %d contents and none has that URI", ErrNotApp, uri, len(r.Contents))
	}
	doc := AppDocument{URI: uri, MIMEType: c.MIMEType, UI: ResourceUIOf(c.Meta)}
	if !IsAppMIMEType(c.MIMEType) {
		return doc, fmt.Errorf("%w: %s has MIME type %q; an app's HTML must be %s", ErrNotApp, uri, c.MIMEType, AppMIMEType)
	}
	switch {
	case c.Blob != "":
		b, err := base64.StdEncoding.DecodeString(c.Blob)
		if err != nil {
			return doc, fmt.Errorf("%w: the blob of %s is not base64: %v", ErrNotApp, uri, err)
		}
		doc.HTML = b
	case c.Text != "":
		doc.HTML = []byte(c.Text)
	default:
		return doc, fmt.Errorf("%w: %s has no text and no blob: the HTML is missing", ErrNotApp, uri)
	}
	return doc, nil
}

// IsAppMIMEType reports whether t is the apps profile of text/html,
// ignoring case and spaces around the parameter.
func IsAppMIMEType(t string) bool {
	base, params, ok := strings.Cut(strings.ToLower(t), ";")
	if !ok || strings.TrimSpace(base) != "text/html" {
		return false
	}
	for _, p := range strings.Split(params, ";") {
		k, v, _ := strings.Cut(p, "=")
		if strings.TrimSpace(k) == "profile" && strings.Trim(strings.TrimSpace(v), `"`) == "mcp-app" {
			return true
		}
	}
	return false
}
