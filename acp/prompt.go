package acp

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// promptOf is a prompt's blocks as the agent takes a message: its text, and its images.
// A resource of the workspace (linked or embedded) becomes an @path in the text, as the
// window's mentions are: the agent reads it with its own read_file, under the workspace's
// rules. An embedded text resource outside the workspace goes into the text whole; a link
// outside it stays a link.
func promptOf(workspace string, blocks []sdk.ContentBlock) (string, [][]byte, error) {
	var parts []string
	var images [][]byte
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Image != nil:
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err != nil {
				return "", nil, fmt.Errorf("an image of the prompt is not base64: %w", err)
			}
			images = append(images, data)
		case b.ResourceLink != nil:
			if rel, ok := inWorkspace(workspace, b.ResourceLink.Uri); ok {
				parts = append(parts, "@"+rel)
			} else {
				parts = append(parts, b.ResourceLink.Uri)
			}
		case b.Resource != nil:
			res := b.Resource.Resource
			switch {
			case res.TextResourceContents != nil:
				if rel, ok := inWorkspace(workspace, res.TextResourceContents.Uri); ok {
					parts = append(parts, "@"+rel)
				} else {
					parts = append(parts, fmt.Sprintf("%s:\n```\n%s\n```", res.TextResourceContents.Uri, res.TextResourceContents.Text))
				}
			case res.BlobResourceContents != nil:
				mime := ""
				if res.BlobResourceContents.MimeType != nil {
					mime = *res.BlobResourceContents.MimeType
				}
				if !strings.HasPrefix(mime, "image/") {
					return "", nil, fmt.Errorf("%s cannot be attached: only text and images can", res.BlobResourceContents.Uri)
				}
				data, err := base64.StdEncoding.DecodeString(res.BlobResourceContents.Blob)
				if err != nil {
					return "", nil, fmt.Errorf("%s is not base64: %w", res.BlobResourceContents.Uri, err)
				}
				images = append(images, data)
			}
		case b.Audio != nil:
			return "", nil, fmt.Errorf("audio cannot be attached: this agent reads text and images")
		}
	}
	return strings.TrimSpace(strings.Join(parts, " ")), images, nil
}

// inWorkspace is the workspace path of a file URI (or absolute path) inside workspace.
func inWorkspace(workspace, uri string) (string, bool) {
	p := uri
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" {
		p = u.Path
	} else if err == nil && u.Scheme != "" {
		return "", false
	}
	if workspace == "" || !filepath.IsAbs(p) {
		return "", false
	}
	rel, err := filepath.Rel(workspace, filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || strings.ContainsAny(rel, " \t\n@") {
		return "", false // a path with a space cannot be an @mention: it stays as given
	}
	return filepath.ToSlash(rel), true
}
