package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"

	"mcpdeck/runtime"
)

// didYouMean is " (did you mean X?)" for the candidates closest to name,
// or "" when none is close: a typo costs one more run, not a search.
func didYouMean(name string, candidates []string) string {
	type scored struct {
		s string
		d int
	}
	var close []scored
	lower := strings.ToLower(name)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := levenshtein.ComputeDistance(lower, lc)
		// Close enough: a third of the name's length in edits, or one
		// contains the other (a prefix typed, a namespace forgotten).
		if d <= editsAllowed(name) || (len(lower) >= 3 && (strings.Contains(lc, lower) || strings.Contains(lower, lc))) {
			close = append(close, scored{c, d})
		}
	}
	if len(close) == 0 {
		return ""
	}
	sort.SliceStable(close, func(i, j int) bool { return close[i].d < close[j].d })
	var names []string
	for _, c := range close[:min(len(close), 3)] {
		names = append(names, c.s)
	}
	return " (did you mean " + strings.Join(names, " or ") + "?)"
}

// editsAllowed is how many edits still make a close name: a third of its
// length, and two (a swapped pair of letters) from four letters on.
func editsAllowed(name string) int {
	n := max(len(name)/3, 1)
	if len(name) >= 4 {
		n = max(n, 2)
	}
	return n
}

// The names cache lets shell completion offer tool and prompt names
// without starting servers: every listing a command makes is remembered
// under $XDG_CACHE_HOME/mcpdeck/names.json, per server name.

type cachedNames struct {
	Tools     []string `json:"tools,omitempty"`
	Prompts   []string `json:"prompts,omitempty"`
	Resources []string `json:"resources,omitempty"`
}

var cacheMu sync.Mutex

// namesCachePath is where the cache lives; tests point it elsewhere.
var namesCachePath = func() (string, error) {
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = d
	}
	return filepath.Join(dir, "mcpdeck", "names.json"), nil
}

func readNamesCache() map[string]cachedNames {
	out := map[string]cachedNames{}
	path, err := namesCachePath()
	if err != nil {
		return out
	}
	data, err := os.ReadFile(path)
	if err == nil {
		_ = json.Unmarshal(data, &out)
	}
	return out
}

// rememberNames writes what the snapshot lists of its live servers to the
// cache. Failing to is not worth reporting: completion just offers less.
func rememberNames(snap *runtime.Snapshot) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	path, err := namesCachePath()
	if err != nil {
		return
	}
	all := readNamesCache()
	for _, v := range snap.Servers {
		if !v.State.Live() {
			continue
		}
		var n cachedNames
		for _, t := range v.Tools {
			n.Tools = append(n.Tools, t.ServerTool)
		}
		for _, p := range v.Prompts {
			n.Prompts = append(n.Prompts, p.Name)
		}
		for _, r := range v.Resources {
			n.Resources = append(n.Resources, r.URI)
		}
		all[v.Name] = n
	}
	data, err := json.Marshal(all)
	if err != nil || os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	tmp := path + ".tmp"
	if os.WriteFile(tmp, data, 0o600) == nil {
		_ = os.Rename(tmp, path)
	}
}

// completeServers offers the configured server names.
func completeServers(cmd *cobra.Command, toComplete string) []string {
	cfg, err := loadRunnable(configFiles(cmd)) // an invalid server is still a name to offer
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range cfg.Servers {
		if strings.HasPrefix(s.Name, toComplete) {
			out = append(out, s.Name)
		}
	}
	return out
}

// completeFirstServer completes SERVER, then what names returns for the
// server from the cache.
func completeFirstServer(names func(cachedNames) []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		switch len(args) {
		case 0:
			return completeServers(cmd, toComplete), cobra.ShellCompDirectiveNoFileComp
		case 1:
			if names == nil {
				break
			}
			var out []string
			for _, n := range names(readNamesCache()[args[0]]) {
				if strings.HasPrefix(n, toComplete) {
					out = append(out, n)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeEveryServer completes any number of SERVER arguments.
func completeEveryServer(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return completeServers(cmd, toComplete), cobra.ShellCompDirectiveNoFileComp
}
