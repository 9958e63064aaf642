package apphost

import (
	"strings"

	"mcpdeck/runtime/mcp"
)

// Policy is the Content-Security-Policy of a view's document, built from
// the resource's _meta.ui.csp the way the extension maps it (SEP-1865,
// "Content Security Policy Enforcement"): resourceDomains feed script,
// style, image, font and media sources; connectDomains connect-src;
// frameDomains frame-src (else 'none'); baseUriDomains base-uri (else
// 'self'); objects never. Nothing is allowed that the server did not
// declare. mcpdeck's own origin serves a view nothing, so 'self' is left
// out of the fetch directives (a host may restrict further, never
// loosen). The sandbox directive makes the document sandboxed even if it
// were loaded outside the page's iframe, and frame-ancestors keeps it out
// of any page but mcpdeck's.
func Policy(c mcp.AppCSP) string {
	res := strings.Join(c.ResourceDomains, " ")
	with := func(fixed, list string) string {
		if list == "" {
			return fixed
		}
		return fixed + " " + list
	}
	or := func(list []string, fallback string) string {
		if len(list) == 0 {
			return fallback
		}
		return strings.Join(list, " ")
	}
	return strings.Join([]string{
		"default-src 'none'",
		with("script-src 'unsafe-inline'", res),
		with("style-src 'unsafe-inline'", res),
		with("img-src data: blob:", res),
		with("font-src data:", res),
		with("media-src data: blob:", res),
		"connect-src " + or(c.ConnectDomains, "'none'"),
		"frame-src " + or(c.FrameDomains, "'none'"),
		"base-uri " + or(c.BaseURIDomains, "'self'"),
		"object-src 'none'",
		"form-action 'none'",
		"frame-ancestors 'self'",
		"sandbox allow-scripts",
	}, "; ")
}

// Allow is the iframe's allow attribute for the permissions the resource
// asks for (mcp.AppPermissions keys): the browser still asks the operator
// before it grants any of them.
func Allow(permissions []string) string {
	var out []string
	for _, p := range mcp.AppPermissions {
		for _, want := range permissions {
			if want == p.Key {
				out = append(out, p.Feature)
			}
		}
	}
	return strings.Join(out, "; ")
}
