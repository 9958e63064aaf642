package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The control socket is a headless gateway's operator endpoint: `mcpdeck
// gateway pending|approve|deny` talk to it from another terminal. It is a
// Unix domain socket (on Windows too, which has them since Windows 10),
// mode 0600 in a directory of mode 0700, and it refuses a peer of another
// user where the system names the peer (Linux). One request a connection:
// a JSON line in, a JSON line out.

// ControlRequest is one request on a control socket.
type ControlRequest struct {
	// Op is "pending" (list the calls waiting), "approve" or "deny".
	Op     string `json:"op"`
	ID     string `json:"id,omitempty"`
	Reason string `json:"reason,omitempty"`
	// By is who the caller says it is; the gateway adds what the system
	// says of the peer (pid, uid) where it can.
	By string `json:"by,omitempty"`
}

// ControlResponse answers a ControlRequest.
type ControlResponse struct {
	// PID is the gateway's process.
	PID     int        `json:"pid"`
	Pending []Approval `json:"pending"`
	// Error says why the request failed; "" when it worked.
	Error string `json:"error,omitempty"`
	// Unknown is set when Error is about an ID no call waits under.
	Unknown bool `json:"unknown,omitempty"`
}

// controlLimit bounds a request line, and controlWait one exchange.
const (
	controlLimit = 64 << 10
	controlWait  = 5 * time.Second
)

// ListenControl opens a control socket at path: its directory is created
// with mode 0700, a stale socket left there (nobody answers on it) is
// replaced, and the socket gets mode 0600. A socket some process still
// answers on is not taken over.
func ListenControl(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the control socket's directory: %w", err)
	}
	if _, err := os.Lstat(path); err == nil {
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("the control socket %s is in use by another gateway; give --control another path", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("removing the stale control socket %s: %w", path, err)
		}
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("opening the control socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("restricting the control socket %s to its owner: %w", path, err)
	}
	return l, nil
}

// ServeControl answers operators on l until ctx ends or l is closed; it
// closes l (which removes a Unix socket) and waits for the exchanges under
// way before it returns. While it serves, it is attached as an approver
// (AttachApprover).
func (g *Gateway) ServeControl(ctx context.Context, l net.Listener) error {
	detach := g.AttachApprover()
	defer detach()
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			l.Close()
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("control socket: %w", err)
		}
		wg.Go(func() { g.controlExchange(c) })
	}
}

// controlExchange answers one connection.
func (g *Gateway) controlExchange(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(controlWait))
	resp := ControlResponse{PID: os.Getpid()}
	defer func() {
		b, _ := json.Marshal(resp)
		_, _ = c.Write(append(b, '\n'))
	}()
	peer, err := peerOf(c)
	if err != nil {
		resp.Error = err.Error()
		return
	}
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 4096), controlLimit)
	if !sc.Scan() {
		resp.Error = "send one JSON request line"
		return
	}
	var req ControlRequest
	if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
		resp.Error = "the request is not JSON: " + err.Error()
		return
	}
	switch req.Op {
	case "pending":
	case "approve", "deny":
		by := req.By
		if by == "" {
			by = "an operator on the control socket"
		}
		by += peer
		if err := g.Decide(req.ID, req.Op == "approve", by, req.Reason); err != nil {
			resp.Error, resp.Unknown = err.Error(), errors.Is(err, ErrNoSuchApproval)
		}
	default:
		resp.Error = fmt.Sprintf("unknown op %q: use pending, approve or deny", req.Op)
		return
	}
	resp.Pending = g.Pending()
}

// Control sends one request to the control socket at path and returns
// the gateway's answer; an answer with Error set is returned as it is,
// with a nil error.
func Control(ctx context.Context, path string, req ControlRequest) (ControlResponse, error) {
	var d net.Dialer
	ctx, cancel := context.WithTimeout(ctx, controlWait)
	defer cancel()
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return ControlResponse{}, err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	b, _ := json.Marshal(req)
	if _, err := c.Write(append(b, '\n')); err != nil {
		return ControlResponse{}, fmt.Errorf("writing to the control socket %s: %w", path, err)
	}
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 4096), 64<<20)
	if !sc.Scan() {
		err := sc.Err()
		if err == nil {
			err = errors.New("it closed without an answer")
		}
		return ControlResponse{}, fmt.Errorf("reading the control socket %s: %w", path, err)
	}
	var resp ControlResponse
	if err := json.Unmarshal(sc.Bytes(), &resp); err != nil {
		return ControlResponse{}, fmt.Errorf("the control socket %s answered what is not JSON: %w", path, err)
	}
	return resp, nil
}
