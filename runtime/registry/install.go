package registry

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"mcpdeck/config"
)

// Turning a server.json into an entry. A package becomes the command its
// registry type runs it with (npm → npx -y pkg@version, pypi → uvx
// pkg==version, oci → docker run -i --rm image, nuget → dnx pkg@version
// --yes), with its runtime and package arguments; a remote becomes a url
// with its headers. Every value the server declares (environment
// variables, arguments, headers and the {variables} inside them) is filled
// from what the person gave, else asked, else its default; a secret or a
// required value nobody gave becomes a reference (${env:NAME}, or a VS
// Code ${input:id}) and a notice says what to set. A secret is never
// written in plain text unless the person chose SecretAsValue.

// Sentinel errors of Install.
var (
	// ErrUnsupported: the server can only be run in a way mcpdeck cannot
	// configure (an MCP bundle, a package serving HTTP on a port).
	ErrUnsupported = errors.New("cannot be installed by mcpdeck")
	// ErrNoSuchWay: the server is not published the way asked (no remote,
	// no package of that type), or a value it needs was not given.
	ErrNoSuchWay = errors.New("cannot be installed that way")
)

// Need is one value a server declares.
type Need struct {
	// Key is what --input KEY=VALUE names: an environment variable's or a
	// header's name, an argument's value hint or flag name (without
	// dashes), or a {variable}.
	Key  string
	Kind string // "env", "header", "argument" or "variable"
	Input
	// How says how it was filled: "given", "asked", "default", "fixed",
	// "reference" (a variable or input to set) or "left out".
	How string
}

// Options say which way to install a server and how to fill what it needs.
type Options struct {
	// Name is the server's name in the configuration.
	Name string
	// Package picks a package by registry type (npm, pypi, oci, nuget);
	// Remote picks a remote. Neither: the first stdio package, else the
	// first remote.
	Package string
	Remote  bool
	// Values are the values given, by Need.Key.
	Values map[string]string
	// Ask, when set, is asked for a required value nobody gave that has no
	// default (and for secrets only when Secrets is SecretAsValue: the
	// other storages need no value); ok false leaves it to a reference.
	Ask func(Need) (string, bool)
	// Secrets is how secrets are written.
	Secrets config.SecretStorage
}

// Installation is a server.json turned into a configuration entry, in
// mcpdeck's format (config.Client.Export converts it for another client).
type Installation struct {
	Entry  config.Entry
	Inputs []config.Input // VS Code inputs the entry refers to
	// Notices say what to set before the server starts, and what was
	// chosen for the person.
	Notices []config.Notice
	// Via says what runs: "npm @brave/brave-search-mcp-server@2.0.58".
	Via string
	// Needs are every value the server declares, as filled.
	Needs []Need
}

// Install turns s into an entry as o says.
func Install(s ServerJSON, o Options) (Installation, error) {
	r := &resolver{o: o, server: s.Name}
	if o.Name == "" {
		r.o.Name = ShortName(s.Name)
	}
	var err error
	switch {
	case o.Remote || (o.Package == "" && len(runnablePackages(s)) == 0 && len(s.Remotes) > 0):
		err = r.remote(s)
	default:
		err = r.pkg(s)
	}
	if err != nil {
		return Installation{}, err
	}
	r.out.Needs = r.needs
	return r.out, nil
}

// nameChars are the characters a configuration name may not have.
var nameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_.-]+`) })

// ShortName is the part of a registry name after its namespace, as a
// configuration name: "io.github.brave/brave-search-mcp-server" →
// "brave-search-mcp-server".
func ShortName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = nameChars().ReplaceAllString(name, "-")
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" {
		name = "server"
	}
	return name
}

// runnablePackages are the packages mcpdeck can run: over stdio, of a
// registry type it knows a runner for.
func runnablePackages(s ServerJSON) []Package {
	var out []Package
	for _, p := range s.Packages {
		if (p.Transport.Type == "" || p.Transport.Type == "stdio") && runner(p) != "" {
			out = append(out, p)
		}
	}
	return out
}

// runner is the command that runs a package.
func runner(p Package) string {
	if p.RuntimeHint != "" {
		return p.RuntimeHint
	}
	switch p.RegistryType {
	case "npm":
		return "npx"
	case "pypi":
		return "uvx"
	case "oci":
		return "docker"
	case "nuget":
		return "dnx"
	}
	return ""
}

type resolver struct {
	o      Options
	server string
	out    Installation
	needs  []Need
}

func (r *resolver) note(format string, args ...any) {
	r.out.Notices = append(r.out.Notices, config.Notice{Server: r.o.Name, Message: fmt.Sprintf(format, args...)})
}

// pkg installs a package.
func (r *resolver) pkg(s ServerJSON) error {
	p, err := r.choosePackage(s)
	if err != nil {
		return err
	}
	cmd := runner(p)
	var args []string
	runtimeArgs := r.args(p.RuntimeArguments)
	image, imageAt, via := "", -1, ""
	switch p.RegistryType {
	case "npm":
		if cmd == "npx" && !slices.Contains(runtimeArgs, "-y") && !slices.Contains(runtimeArgs, "--yes") {
			args = append(args, "-y")
		}
	case "oci":
		image = p.Identifier
		if !strings.Contains(image[strings.LastIndexByte(image, '/')+1:], ":") && !strings.Contains(image, "@") && p.Version != "" {
			image += ":" + p.Version
		}
		if len(runtimeArgs) == 0 || runtimeArgs[0] != "run" {
			args = append(args, "run", "-i", "--rm")
		}
		// The image written among the runtime arguments (as GitHub's
		// server.json does) is the image: with its tag, and only once.
		full, repo := image, imageRepo(image)
		for i, a := range runtimeArgs {
			if imageAt < 0 && (a == repo || a == full) {
				runtimeArgs[i], image, imageAt = full, "", i
			}
		}
		via = full
	}
	env := r.env(p.EnvironmentVariables)
	if p.RegistryType == "oci" && len(env) > 0 {
		// docker passes a variable into the container only when told to,
		// among the options before the image.
		var pass []string
		for _, kv := range env {
			pass = append(pass, "-e", kv.Name)
		}
		if imageAt < 0 {
			imageAt = len(runtimeArgs)
		}
		runtimeArgs = slices.Insert(runtimeArgs, imageAt, pass...)
	}
	args = append(args, runtimeArgs...)
	spec := p.Identifier
	switch p.RegistryType {
	case "npm", "nuget":
		if p.Version != "" {
			spec += "@" + p.Version
		}
	case "pypi":
		if p.Version != "" && p.Version != "latest" {
			spec += "==" + p.Version
		}
	case "oci":
		spec = image
	}
	if spec != "" {
		args = append(args, spec)
	}
	pkgArgs := r.args(p.PackageArguments)
	if p.RegistryType == "nuget" {
		args = append(args, "--yes")
		if len(pkgArgs) > 0 {
			args = append(args, "--")
		}
	}
	args = append(args, pkgArgs...)
	r.out.Entry = config.StdioEntry(cmd, args, env, "", "")
	r.out.Via = fmt.Sprintf("%s %s", p.RegistryType, cmp.Or(via, spec, p.Identifier))
	return nil
}

// imageRepo is an image reference without its tag or digest.
func imageRepo(image string) string {
	if i := strings.IndexByte(image, '@'); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndexByte(image, ':'); i > strings.LastIndexByte(image, '/') {
		image = image[:i]
	}
	return image
}

func (r *resolver) choosePackage(s ServerJSON) (Package, error) {
	var types []string
	for _, p := range s.Packages {
		types = append(types, p.RegistryType)
	}
	if r.o.Package != "" {
		for _, p := range s.Packages {
			if p.RegistryType != r.o.Package {
				continue
			}
			if p.Transport.Type != "" && p.Transport.Type != "stdio" {
				return Package{}, fmt.Errorf("%s's %s package serves %s at %s: mcpdeck runs stdio packages only; start it yourself and add it with --url: %w", s.Name, p.RegistryType, p.Transport.Type, p.Transport.URL, ErrUnsupported)
			}
			if runner(p) == "" {
				return Package{}, unsupportedType(s, p)
			}
			return p, nil
		}
		return Package{}, fmt.Errorf("%w: %s has no %s package (it has: %s)", ErrNoSuchWay, s.Name, r.o.Package, listOr(types, "no package"))
	}
	if ps := runnablePackages(s); len(ps) > 0 {
		if len(s.Packages) > 1 || len(s.Remotes) > 0 {
			r.note("installed the %s package; %s", ps[0].RegistryType, alternatives(s, ps[0]))
		}
		return ps[0], nil
	}
	if len(s.Packages) > 0 {
		return Package{}, unsupportedType(s, s.Packages[0])
	}
	return Package{}, fmt.Errorf("%s declares no package and no remote: there is nothing to run: %w", s.Name, ErrUnsupported)
}

func unsupportedType(s ServerJSON, p Package) error {
	if p.RegistryType == "mcpb" {
		return fmt.Errorf("%s is an MCP bundle (.mcpb), which a desktop client downloads and unpacks: %w", s.Name, ErrUnsupported)
	}
	if p.Transport.Type != "" && p.Transport.Type != "stdio" {
		return fmt.Errorf("%s's package serves %s at %s: mcpdeck runs stdio packages only; start it yourself and add it with --url: %w", s.Name, p.Transport.Type, p.Transport.URL, ErrUnsupported)
	}
	return fmt.Errorf("%s is a %s package, which mcpdeck does not know how to run: %w", s.Name, p.RegistryType, ErrUnsupported)
}

// alternatives says which other ways to install s exist.
func alternatives(s ServerJSON, chosen Package) string {
	var alt []string
	for _, p := range s.Packages {
		if p.RegistryType != chosen.RegistryType {
			alt = append(alt, "--package "+p.RegistryType)
		}
	}
	if len(s.Remotes) > 0 {
		alt = append(alt, "--remote")
	}
	if len(alt) == 0 {
		return "it is the only way this server is published"
	}
	return "also published: " + strings.Join(slices.Compact(alt), ", ")
}

// remote installs a remote.
func (r *resolver) remote(s ServerJSON) error {
	if len(s.Remotes) == 0 {
		return fmt.Errorf("%w: %s has no remote; install one of its packages (%s)", ErrNoSuchWay, s.Name, listOr(packageTypes(s), "none"))
	}
	rem := s.Remotes[0]
	var transport config.Transport
	switch rem.Type {
	case "streamable-http", "http":
		transport = config.TransportHTTP
	case "sse":
		transport = config.TransportSSE
	default:
		return fmt.Errorf("%s's remote speaks %q, which mcpdeck does not: %w", s.Name, rem.Type, ErrUnsupported)
	}
	u, missing := r.substitute(rem.URL, rem.Variables, true)
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s's URL %s needs %s; give %s", ErrNoSuchWay, s.Name, rem.URL, strings.Join(missing, ", "), inputFlags(missing))
	}
	headers := config.Pairs{}
	for _, h := range rem.Headers {
		if v, ok := r.keyValue(h, "header"); ok {
			headers = append(headers, config.Pair{Name: h.Name, Value: v})
		}
	}
	r.out.Entry = config.RemoteEntry(transport, u, headers)
	r.out.Via = fmt.Sprintf("remote %s %s", rem.Type, u)
	if len(s.Remotes) > 1 || len(s.Packages) > 0 {
		var alt []string
		for _, p := range runnablePackages(s) {
			alt = append(alt, "--package "+p.RegistryType)
		}
		if len(alt) > 0 {
			r.note("installed the remote; also published: %s", strings.Join(slices.Compact(alt), ", "))
		}
	}
	return nil
}

func packageTypes(s ServerJSON) []string {
	var out []string
	for _, p := range s.Packages {
		out = append(out, p.RegistryType)
	}
	return out
}

func listOr(items []string, none string) string {
	if len(items) == 0 {
		return none
	}
	return strings.Join(items, ", ")
}

// inputFlags writes --input flags for names.
func inputFlags(names []string) string {
	var out []string
	for _, n := range names {
		out = append(out, "--input "+n+"=VALUE")
	}
	return strings.Join(out, " ")
}
