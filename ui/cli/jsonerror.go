package cli

import (
	"errors"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// jsonError is what a command run with --json prints on stdout when it
// fails: one object a script can read where it reads the result, next to
// the human message on stderr and the unchanged exit status.
type jsonError struct {
	Error jsonErrorBody `json:"error"`
}

type jsonErrorBody struct {
	// Kind is the runtime's name for the failure (runtime/errors.go:
	// unknown-server, unknown-tool, invalid-arguments, exited, timeout,
	// ...); "unknown" for what the table does not classify (a usage error).
	Kind    runtime.ErrorKind `json:"kind"`
	Message string            `json:"message"`
	// Server is the server the failure is about, when one is.
	Server string `json:"server,omitempty"`
}

// serverError is an error about one server, of a kind the runtime's
// table names: the message stays as written (it says what to do, so no
// hint is added to it), and --json names the server and the kind.
type serverError struct {
	server string
	kind   runtime.ErrorKind
	err    error
}

func (e *serverError) Error() string { return e.err.Error() }
func (e *serverError) Unwrap() error { return e.err }

// aboutServer marks err as being about server, of kind.
func aboutServer(server string, kind runtime.ErrorKind, err error) error {
	return &serverError{server: server, kind: kind, err: err}
}

// writeJSONError prints err as a jsonError on w when the command was asked
// for --json: its parsed flag, or the word among args when the flags did
// not parse (an unknown flag). A silent exit (a failed check, an isError
// result) is not one: the command printed its own JSON.
func writeJSONError(cmd *cobra.Command, args []string, w io.Writer, err error) {
	asked := slices.Contains(args, "--json") || slices.Contains(args, "--json=true")
	if cmd != nil {
		if f := cmd.Flags().Lookup("json"); f != nil && f.Changed {
			asked = f.Value.String() == "true"
		}
	}
	if !asked {
		return
	}
	_ = present.WriteJSON(w, jsonError{Error: jsonErrorOf(err)})
}

// jsonErrorOf is err as the error object's body: its kind, its message
// and the server it is about.
func jsonErrorOf(err error) jsonErrorBody {
	info := present.InfoOf(err)
	body := jsonErrorBody{Kind: info.Kind, Message: present.Clean(err.Error()), Server: info.Server}
	var se *serverError
	var argErr *runtime.ArgumentsError
	switch {
	case errors.As(err, &se):
		body.Kind, body.Server = se.kind, se.server
	case body.Server != "":
	case errors.As(err, &argErr):
		body.Server = argErr.Server
	}
	return body
}

// jsonErrorsOf are errs as a listing's "errors" member: nil (left out)
// when there are none.
func jsonErrorsOf(errs []error) []jsonErrorBody {
	var out []jsonErrorBody
	for _, err := range errs {
		out = append(out, jsonErrorOf(err))
	}
	return out
}
