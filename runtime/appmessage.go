package runtime

// AppMessage: one message of the MCP Apps bridge between an app's view
// (the server's ui:// HTML, running in the operator's browser) and
// mcpdeck's host (runtime/apphost). In is from the view, Out is to it.
// Server is the app's server; View names the opened app, so that two
// apps of one server keep their JSON-RPC ids apart. The frame's Raw is
// what crossed the bridge, scrubbed of the server's secrets like
// everything else the server's code sends.
type AppMessage struct {
	EventHeader
	View  string
	Tool  string // the server's name of the tool whose result the view shows
	Frame Frame
}

// TraceApp publishes a message of an app's bridge: the Traffic tab shows
// it and a recording keeps it. The host calls it for every message, both
// ways, in the order they crossed.
func (c *Controller) TraceApp(m AppMessage) {
	if m.Time.IsZero() {
		m.Time = m.Frame.Time
	}
	if sess := c.pub.Load().live[m.Server]; sess != nil {
		m.Frame.Raw = sess.redact.bytes(m.Frame.Raw)
	}
	c.bus.publish(m)
}
