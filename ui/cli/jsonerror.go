package cli

import (
	"errors"
	"io"

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

// serverError is an error about one server, of the kind sentinel: the
// message stays as written, and --json names the server and the kind.
type serverError struct {
	server   string
	sentinel error
	err      error
}

func (e *serverError) Error() string   { return e.err.Error() }
func (e *serverError) Unwrap() []error { return []error{e.err, e.sentinel} }

// aboutServer marks err as being about server, of the kind sentinel stands for.
func aboutServer(server string, sentinel, err error) error {
	return &serverError{server: server, sentinel: sentinel, err: err}
}

// writeJSONError prints err as a jsonError on w when cmd was asked for
// --json. A silent exit (a failed check, an isError result) is not one:
// the command printed its own JSON.
func writeJSONError(cmd *cobra.Command, w io.Writer, err error) {
	if cmd == nil {
		return
	}
	if f := cmd.Flags().Lookup("json"); f == nil || f.Value.String() != "true" {
		return
	}
	info := present.InfoOf(err)
	body := jsonErrorBody{Kind: info.Kind, Message: err.Error(), Server: info.Server}
	var se *serverError
	var argErr *runtime.ArgumentsError
	switch {
	case body.Server != "":
	case errors.As(err, &se):
		body.Server = se.server
	case errors.As(err, &argErr):
		body.Server = argErr.Server
	}
	_ = present.WriteJSON(w, jsonError{Error: body})
}
