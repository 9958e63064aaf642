package cli

import (
	"fmt"
	"io"

	"mcpdeck/runtime/check"
)

// printProfileGrids prints, for each server, the client profiles against
// the rules: what each client does with this server at a glance. A rule a
// client has no limit for is "-".
func printProfileGrids(w io.Writer, reports []check.Report) {
	for _, r := range reports {
		if len(r.Profiles) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: client profiles (limits as of %s; sources: runtime/check/PROFILES.md)\n", r.Server, check.ProfilesChecked)
		header := []string{"CLIENT"}
		for _, rule := range check.Rules {
			header = append(header, string(rule))
		}
		var rows [][]string
		for _, p := range r.Profiles {
			row := []string{p.Profile}
			for _, rule := range check.Rules {
				cell := "-"
				for _, f := range p.Findings {
					if f.Rule == rule {
						cell = f.Status.String()
					}
				}
				row = append(row, cell)
			}
			rows = append(rows, row)
		}
		printTable(w, header, rows)
	}
}
