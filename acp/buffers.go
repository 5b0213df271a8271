package acp

import (
	"context"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// editorBuffers reads files through the editor (fs/read_text_file) when it offered to, so
// that read_file and @-mentions see what the user has typed and not saved. The workspace's
// rules are applied on disk first (tools.Buffers); writes stay on disk, where checkpoints
// record them and undo puts them back.
type editorBuffers struct{ s *Server }

// Text asks the editor for the text of abs, in a session whose folder holds it (any session
// of the connection otherwise: the editor's buffers are its own). An editor that cannot
// answer leaves the reading to the disk.
func (b editorBuffers) Text(ctx context.Context, abs string) (string, bool, error) {
	id, ok := b.s.sessionFor(abs)
	if !ok {
		return "", false, nil
	}
	resp, err := b.s.peer().ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(id), Path: abs})
	if err != nil {
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		b.s.cfg.Log.Warn("the editor did not give a file's text; reading the disk", "path", abs, "err", err)
		return "", false, nil
	}
	return resp.Content, true, nil
}

// sessionFor is the session to read abs in, when the editor offered to read files.
func (s *Server) sessionFor(abs string) (string, bool) {
	s.mu.Lock()
	reads := s.reads
	ids := make([]string, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	if !reads || len(ids) == 0 {
		return "", false
	}
	for _, id := range ids {
		ws := s.sessionOfChat(id).workspace()
		if rel, err := filepath.Rel(ws, abs); ws != "" && err == nil && !strings.HasPrefix(rel, "..") {
			return id, true
		}
	}
	return ids[0], true
}
