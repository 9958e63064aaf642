package mcp

import "encoding/json"

// The content block types of tool results and prompt messages.
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentAudio        = "audio"
	ContentResourceLink = "resource_link"
	ContentResource     = "resource"
)

// Content is one content block (ContentBlock in the schema): text, image,
// audio, resource_link or resource. One struct holds every type so a
// block of a type mcpdeck does not know still travels through whole in
// what it shares with the others. Annotations (audience, priority,
// lastModified) and _meta are kept raw, exactly as the server sent them.
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`     // text
	Data     string `json:"data,omitempty"`     // base64, image and audio
	MIMEType string `json:"mimeType,omitempty"` // image, audio, resource_link
	// resource_link: a Resource with a type.
	URI         string          `json:"uri,omitempty"`
	Name        string          `json:"name,omitempty"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Size        json.RawMessage `json:"size,omitempty"`
	Icons       json.RawMessage `json:"icons,omitempty"`
	// resource: the embedded contents.
	Resource    *ResourceContents `json:"resource,omitempty"`
	Annotations json.RawMessage   `json:"annotations,omitempty"`
	Meta        json.RawMessage   `json:"_meta,omitempty"`
}

// content is Content without its methods.
type content Content

// MarshalJSON writes the members each type requires even when empty: an
// empty text block is {"type":"text","text":""}, which clients validate,
// not {"type":"text"}.
func (c Content) MarshalJSON() ([]byte, error) {
	switch {
	case c.Type == ContentText && c.Text == "":
		return json.Marshal(struct {
			content
			Text string `json:"text"`
		}{content: content(c)})
	case (c.Type == ContentImage || c.Type == ContentAudio) && (c.Data == "" || c.MIMEType == ""):
		return json.Marshal(struct {
			content
			Data     string `json:"data"`
			MIMEType string `json:"mimeType"`
		}{content(c), c.Data, c.MIMEType})
	case c.Type == ContentResourceLink && (c.URI == "" || c.Name == ""):
		return json.Marshal(struct {
			content
			URI  string `json:"uri"`
			Name string `json:"name"`
		}{content(c), c.URI, c.Name})
	}
	return json.Marshal(content(c))
}

// ResourceContents are the contents of a resource: text, or a base64 blob
// (TextResourceContents and BlobResourceContents in the schema).
type ResourceContents struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType,omitempty"`
	Text     string          `json:"text,omitempty"`
	Blob     string          `json:"blob,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// resourceContents is ResourceContents without its methods.
type resourceContents ResourceContents

// MarshalJSON writes "text" for contents without a blob even when the
// text is empty: an empty text resource is still a text resource.
func (r ResourceContents) MarshalJSON() ([]byte, error) {
	if r.Blob == "" && r.Text == "" {
		return json.Marshal(struct {
			resourceContents
			Text string `json:"text"`
		}{resourceContents: resourceContents(r)})
	}
	return json.Marshal(resourceContents(r))
}

// IsBlob reports binary contents.
func (r ResourceContents) IsBlob() bool { return r.Blob != "" }
