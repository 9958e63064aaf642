package record

import (
	"errors"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"mcpdeck/config"
)

// A server whose definition is broken is kept in the configuration with
// config.Server.Invalid set, an error interface, and the header holds it.
// An interface cannot be decoded without knowing its concrete type, so
// the codec writes it as what it is, the configuration's diagnostics
// (config.Errors: [{"Pos", "Server", "Field", "Message"}]), and reads it
// back as config.Errors, so a replay shows the server as invalid with the
// same file:line:col message. Other shapes are read too: files written
// before 1.1 by a writer given another kind of error hold `{}` (nothing
// said why), or possibly a string.

// invalidUnknown is the message of an invalid server whose recording does
// not say what was wrong.
const invalidUnknown = "the configuration was invalid (the recording does not say why)"

// diagnosticsOf is err as configuration diagnostics: config.Errors as they
// are, any other error as one diagnostic holding its text.
func diagnosticsOf(err error) config.Errors {
	var diags config.Errors
	if errors.As(err, &diags) && diags.Error() == err.Error() {
		return diags
	}
	return config.Errors{{Message: err.Error()}}
}

// marshalInvalid writes a non-nil error field as diagnostics (a nil one is
// left out: absent means zero).
func marshalInvalid(enc *jsontext.Encoder, e *error) error {
	if *e == nil {
		return enc.WriteToken(jsontext.Null)
	}
	return json.MarshalEncode(enc, []config.Diagnostic(diagnosticsOf(*e)))
}

// unmarshalInvalid reads an error field back as config.Errors.
func unmarshalInvalid(b []byte, e *error) error {
	switch jsontext.Value(b).Kind() {
	case 'n':
		*e = nil
	case '[':
		var diags []config.Diagnostic
		if err := json.Unmarshal(b, &diags, decodeOpts()); err != nil {
			return err
		}
		*e = config.Errors(diags)
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*e = config.Errors{{Message: s}}
	case '{':
		var d config.Diagnostic
		if json.Unmarshal(b, &d, decodeOpts()) != nil || d.Message == "" {
			d = config.Diagnostic{Message: invalidUnknown}
		}
		*e = config.Errors{d}
	default:
		*e = config.Errors{{Message: invalidUnknown}}
	}
	return nil
}
