package record

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"

	"mcpdeck/jsonrpc"
)

// ServeMock answers m's requests on a byte stream, one JSON-RPC message a
// line (the stdio transport): in is what the client writes, out what it
// reads. It returns when the client closes in or ctx ends; in is closed
// by then.
func ServeMock(ctx context.Context, m *Mock, in io.ReadCloser, out io.Writer, opts MockOptions) error {
	ready := make(chan struct{})
	var conn *jsonrpc.Conn
	conn = jsonrpc.NewConn(jsonrpc.NewStdioStream(in, out, in, jsonrpc.StdioOptions{}), jsonrpc.Options{
		Handler: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-ready
			return m.Answer(ctx, conn, req, opts)
		},
	})
	close(ready)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	_ = conn.Close()
	if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, jsonrpc.ErrClosedByClient) {
		return fmt.Errorf("serving the recording of %q: %w", m.Server, err)
	}
	return nil
}

// maxPages bounds how many pages of one list are followed (a server whose
// cursors go round in circles).
const maxPages = 1000

// Listing is what the recorded server last listed, every page of each
// list followed by its cursor, as the mock serves it. A list the recording
// never asked for is empty.
func (m *Mock) Listing() (Listing, error) {
	out := Listing{Lists: map[string][]stdjson.RawMessage{}}
	for _, k := range ListKinds {
		cursor := ""
		for page := 0; ; page++ {
			var params stdjson.RawMessage
			if cursor != "" {
				params, _ = stdjson.Marshal(map[string]string{"cursor": cursor})
			}
			key, _, _ := exchangeKey(k.Method, params)
			x := m.pick(key, true)
			if x == nil || x.answer == nil || x.answer.err != nil || x.answer.cut {
				if page == 0 {
					break
				}
				return out, fmt.Errorf("the recording has %d page(s) of %s but not the one after cursor %q", page, k.Field, cursor)
			}
			items, next, err := PageOf(k, x.answer.result)
			if err != nil {
				return out, fmt.Errorf("the recorded %s (seq %d): %w", k.Method, x.seq, err)
			}
			out.Lists[k.Field] = append(out.Lists[k.Field], items...)
			if next == "" || page+1 >= maxPages {
				break
			}
			cursor = next
		}
	}
	return out, nil
}
