package record

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"mcpdeck/runtime"
)

// ErrNoHTTP: the recording holds no HTTP exchange to export.
var ErrNoHTTP = errors.New("the recording has no HTTP exchanges (only remote servers' sessions do)")

// The HTTP Archive 1.2 format (http://www.softwareishard.com/blog/har-12-spec/),
// as much of it as an MCP session fills.
type (
	harFile struct {
		Log harLog `json:"log"`
	}
	harLog struct {
		Version string     `json:"version"`
		Creator harCreator `json:"creator"`
		Entries []harEntry `json:"entries"`
		Comment string     `json:"comment,omitempty"`
	}
	harCreator struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	harEntry struct {
		StartedDateTime string      `json:"startedDateTime"`
		Time            float64     `json:"time"` // ms
		Request         harRequest  `json:"request"`
		Response        harResponse `json:"response"`
		Cache           struct{}    `json:"cache"`
		Timings         harTimings  `json:"timings"`
		Comment         string      `json:"comment,omitempty"`
	}
	harRequest struct {
		Method      string       `json:"method"`
		URL         string       `json:"url"`
		HTTPVersion string       `json:"httpVersion"`
		Cookies     []struct{}   `json:"cookies"`
		Headers     []harNV      `json:"headers"`
		QueryString []harNV      `json:"queryString"`
		PostData    *harPostData `json:"postData,omitempty"`
		HeadersSize int          `json:"headersSize"`
		BodySize    int64        `json:"bodySize"`
	}
	harPostData struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	}
	harResponse struct {
		Status      int        `json:"status"`
		StatusText  string     `json:"statusText"`
		HTTPVersion string     `json:"httpVersion"`
		Cookies     []struct{} `json:"cookies"`
		Headers     []harNV    `json:"headers"`
		Content     harContent `json:"content"`
		RedirectURL string     `json:"redirectURL"`
		HeadersSize int        `json:"headersSize"`
		BodySize    int64      `json:"bodySize"`
	}
	harContent struct {
		Size     int64  `json:"size"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
		Comment  string `json:"comment,omitempty"`
	}
	harTimings struct {
		Send    float64 `json:"send"`
		Wait    float64 `json:"wait"`
		Receive float64 `json:"receive"`
	}
	harNV struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
)

// HAR exports the recording's HTTP exchanges (of server, or of every
// server when it is empty) as an HTTP Archive 1.2 document, one entry per
// exchange, in the order they started; a streamed response's SSE events
// are its content text. ErrNoHTTP when there are none.
func HAR(rec *Recording, server, version string) ([]byte, error) {
	var xs []runtime.HTTPExchange
	for _, e := range rec.Entries {
		if x, ok := e.Event.(runtime.HTTPExchange); ok && (server == "" || x.Server == server) {
			xs = append(xs, x)
		}
	}
	if len(xs) == 0 {
		return nil, ErrNoHTTP
	}
	sort.SliceStable(xs, func(i, j int) bool { return xs[i].Exchange.Started.Before(xs[j].Exchange.Started) })
	doc := harFile{Log: harLog{Version: "1.2", Creator: harCreator{Name: "mcpdeck", Version: version},
		Comment: "recorded " + rec.Header.Started.Format(time.RFC3339) + "; credentials redacted"}}
	for _, ev := range xs {
		x := ev.Exchange
		e := harEntry{
			StartedDateTime: x.Started.Format(time.RFC3339Nano),
			Time:            ms(x.Total),
			Request: harRequest{Method: x.Method, URL: x.URL, HTTPVersion: "HTTP/1.1", Cookies: []struct{}{},
				Headers: nvs(x.RequestHeaders), QueryString: query(x.URL), HeadersSize: -1, BodySize: x.RequestSize},
			Response: harResponse{Status: x.Status, StatusText: http.StatusText(x.Status), HTTPVersion: cmp.Or(x.Proto, "HTTP/1.1"),
				Cookies: []struct{}{}, Headers: nvs(x.ResponseHeaders), HeadersSize: -1, BodySize: x.ResponseSize,
				Content: harContent{Size: x.ResponseSize, MimeType: cmp.Or(x.ResponseHeaders.Get("Content-Type"), "x-unknown"), Text: x.ResponseBody}},
			Timings: harTimings{Wait: ms(x.Wait), Receive: ms(x.Total - x.Wait)},
			Comment: strings.TrimSpace(ev.Server + " " + x.Err),
		}
		if x.RequestBody != "" || x.RequestSize > 0 {
			e.Request.PostData = &harPostData{MimeType: cmp.Or(x.RequestHeaders.Get("Content-Type"), "application/json"), Text: x.RequestBody}
		}
		if x.ResponseSize > int64(len(x.ResponseBody)) {
			e.Response.Content.Comment = "content cut to its first bytes; size is the full size"
		}
		if x.Status == 0 {
			e.Response.BodySize, e.Response.Content.Size = -1, 0
		}
		doc.Log.Entries = append(doc.Log.Entries, e)
	}
	return json.MarshalIndent(doc, "", "  ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func nvs(h http.Header) []harNV {
	out := []harNV{}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			out = append(out, harNV{Name: k, Value: v})
		}
	}
	return out
}

func query(raw string) []harNV {
	out := []harNV{}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	return append(out, nvs(http.Header(u.Query()))...)
}
