package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/google/shlex"
	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/ui/present"
)

// editMark starts the comment lines mcpdeck puts above a file it reopens
// with errors; they are removed before the file is checked and written.
const editMark = "// mcpdeck: "

func newEditCmd() *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "edit [NAME]",
		Short: "Open a configuration file in $EDITOR; it is validated before it is written",
		Long: `edit opens a copy of a configuration file in $VISUAL or $EDITOR (else
vi): the file that defines NAME, at NAME's line, or the one --scope or a
single --config names, else the user's mcpdeck/mcp.json. When you save and
quit, the copy is validated as mcpdeck reads it; with an error the copy is
opened again with the file:line:column messages written above it, and
only a valid file replaces the original (atomically, keeping its mode,
and not if it changed meanwhile). Emptying the copy, or leaving it as it
was, changes nothing.`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeFirstServer(nil),
		RunE: func(cmd *cobra.Command, args []string) error {
			var t configTarget
			var err error
			name := ""
			if len(args) == 1 {
				name = args[0]
				t, err = serverTarget(cmd, scope, name)
			} else {
				t, err = addTarget(cmd, scope)
			}
			if err != nil {
				return err
			}
			return editFile(cmd, t, name)
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "", scopeHelp)
	return cmd
}

// editFile runs the editor on a copy of t's file until the copy is valid,
// cancelled or abandoned.
func editFile(cmd *cobra.Command, t configTarget, name string) error {
	d, _, err := openTarget(t)
	if err != nil {
		return err
	}
	original := d.Content()
	if original == nil {
		original = fmt.Appendf(nil, "{\n  %q: {\n  }\n}\n", d.Key())
	}
	dir, err := os.MkdirTemp("", "mcpdeck-edit-")
	if err != nil {
		return withCode(ExitUsage, err)
	}
	keep := false
	defer func() {
		if !keep {
			os.RemoveAll(dir)
		}
	}()
	copyPath := filepath.Join(dir, filepath.Base(t.path))
	line := serverLine(original, name)
	text := original
	for {
		if err := os.WriteFile(copyPath, text, 0o600); err != nil {
			return withCode(ExitUsage, err)
		}
		if err := runEditor(cmd, copyPath, line); err != nil {
			keep = true
			return withCode(ExitUsage, fmt.Errorf("%w; your copy is kept in %s, %s was not changed", err, copyPath, t.path))
		}
		edited, err := os.ReadFile(copyPath)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		edited = stripEditMarks(edited)
		switch {
		case len(bytes.TrimSpace(edited)) == 0:
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpdeck: the copy is empty: %s was not changed\n", t.path)
			return nil
		case bytes.Equal(edited, original):
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpdeck: no changes: %s was not changed\n", t.path)
			return nil
		}
		errs, _ := config.CheckContent(t.path, edited)
		if len(errs) == 0 {
			if err := d.SetContent(edited); err != nil {
				return withCode(ExitUsage, err)
			}
			if err := saveDoc(cmd, d, "saved"); err != nil {
				keep = true
				return withCode(ExitUsage, fmt.Errorf("%w\nyour edit is kept in %s", err, copyPath))
			}
			return nil
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "%s has %s:\n", t.path, present.Plural(len(errs), "an error", fmt.Sprintf("%d errors", len(errs))))
		for _, e := range errs {
			fmt.Fprintf(cmd.ErrOrStderr(), "  %s\n", e)
		}
		if a, ok := prompt(cmd, "Open the editor again to fix it? [Y/n] "); !ok || strings.EqualFold(a, "n") || strings.EqualFold(a, "no") {
			keep = true
			return withCode(ExitUsage, fmt.Errorf("%s was not changed; your edit is kept in %s", t.path, copyPath))
		}
		text, line = markErrors(edited, errs)
	}
}

// markErrors puts the errors above the text as comments, their lines
// counted in the copy as it now is, and returns the line of the first.
func markErrors(text []byte, errs config.Errors) ([]byte, int) {
	head := []string{editMark + "this file was not saved: fix what is listed here and save, or empty it to cancel."}
	shift := len(errs) + 1
	first := 0
	for _, e := range errs {
		e.Pos.File = ""
		if e.Pos.Line > 0 {
			e.Pos.Line += shift
			if first == 0 {
				first = e.Pos.Line
			}
		}
		head = append(head, editMark+strings.ReplaceAll(e.String(), "\n", " "))
	}
	return append([]byte(strings.Join(head, "\n")+"\n"), text...), max(first, 1)
}

// stripEditMarks removes the comment lines markErrors added.
func stripEditMarks(text []byte) []byte {
	for bytes.HasPrefix(text, []byte(editMark)) {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			return nil
		}
		text = text[i+1:]
	}
	return text
}

// serverLine is the line of server name's key in text (1 without one).
func serverLine(text []byte, name string) int {
	if name == "" {
		return 1
	}
	key, _ := strconv.Unquote(strconv.Quote(name))
	i := bytes.Index(text, []byte(strconv.Quote(key)+":"))
	if i < 0 {
		i = bytes.Index(text, []byte(strconv.Quote(key)))
	}
	if i < 0 {
		return 1
	}
	return bytes.Count(text[:i], []byte("\n")) + 1
}

// lineEditors take "+LINE FILE" to open FILE at LINE.
var lineEditors = []string{"vi", "vim", "nvim", "nano", "emacs", "emacsclient", "micro", "mg", "kak", "joe"}

// runEditor runs $VISUAL or $EDITOR (else vi) on path, at line where the
// editor takes one, on the terminal.
func runEditor(cmd *cobra.Command, path string, line int) error {
	spec := os.Getenv("VISUAL")
	if spec == "" {
		spec = os.Getenv("EDITOR")
	}
	if spec == "" {
		spec = "vi"
	}
	words, err := shlex.Split(spec)
	if err != nil || len(words) == 0 {
		return fmt.Errorf("$EDITOR %q: %v", spec, err)
	}
	args := words[1:]
	base := filepath.Base(words[0])
	switch {
	case slices.Contains(lineEditors, base) && line > 1:
		args = append(args, "+"+strconv.Itoa(line), path)
	case (base == "code" || base == "codium" || base == "cursor" || base == "windsurf") && line > 1:
		args = append(args, "--goto", path+":"+strconv.Itoa(line))
	default:
		args = append(args, path)
	}
	ed := exec.Command(words[0], args...)
	ed.Stdout, ed.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
	// The terminal, never a reader that holds the answers to mcpdeck's own
	// questions.
	if in, ok := cmd.InOrStdin().(*os.File); ok {
		ed.Stdin = in
	}
	if err := ed.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("the editor (%s) exited with status %d", spec, exit.ExitCode())
		}
		return fmt.Errorf("starting the editor (%s): %v; set $EDITOR", spec, err)
	}
	return nil
}
