package gateway

import (
	"context"
	"errors"
	"io"

	"mcpdeck/jsonrpc"
)

// ServeStdio serves one client over a byte stream, one JSON-RPC message a
// line (the stdio transport): in is what the client writes, out what it
// reads. It returns when the client closes in, ctx ends, the client is
// disconnected, or the gateway closes; in (and out, if it is an
// io.Closer) are closed by then. A read of in that Close cannot interrupt
// (a blocking terminal) keeps one goroutine until the process exits.
func (g *Gateway) ServeStdio(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	cl := g.newClient(TransportStdio, "stream", "")
	closer := closers{in}
	if c, ok := out.(io.Closer); ok {
		closer = append(closer, c)
	}
	stream := &replyStream{Stream: jsonrpc.NewStdioStream(in, out, closer, jsonrpc.StdioOptions{}), cl: cl}
	conn := g.serveConn(cl, stream, nil, func(conn *jsonrpc.Conn) {
		cl.conn, cl.closeTransport = conn, func() { _ = conn.Close() }
	})
	if err := g.attach(cl); err != nil {
		_ = conn.Close()
		cl.out.stop()
		return err
	}
	reason := "the client closed its input"
	select {
	case <-conn.Done():
		if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) {
			reason = "the connection failed: " + err.Error()
		}
	case <-ctx.Done():
		reason = "the gateway stopped serving it"
	case <-cl.ctx.Done():
		reason = ""
	}
	if reason != "" {
		g.detach(cl, reason)
	}
	return nil
}

// closers closes several things, in order.
type closers []io.Closer

func (cs closers) Close() error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// replyStream tells its client of every frame written, so Close can wait
// for the final answers of listen streams.
type replyStream struct {
	jsonrpc.Stream
	cl *client
}

func (s *replyStream) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := s.Stream.Write(ctx, msg)
	if err == nil {
		s.cl.replied(msg)
	}
	return err
}
