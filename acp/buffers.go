package acp

import (
	"context"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// editorBuffers are the editor's open files, when it offered them (fs/read_text_file,
// fs/write_text_file): read_file and @-mentions read what the user typed and did not save, a
// write never throws that away (tools.ErrUnsaved), and what a write or an edit put on disk is
// handed to the editor, which shows it as the agent's change. The workspace's rules are
// applied on disk first, and the disk is written first: a call's checkpoint records the
// change, and undo puts it back.
type editorBuffers struct{ s *Server }

// Text asks the editor for the text of abs, in a session whose folder holds it (any session
// of the connection otherwise: the editor's buffers are its own). An editor that cannot
// answer leaves the reading to the disk.
func (b editorBuffers) Text(ctx context.Context, abs string) (string, bool, error) {
	b.s.mu.Lock()
	reads := b.s.reads
	b.s.mu.Unlock()
	id, ok := b.s.sessionFor(abs)
	if !reads || !ok {
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

// Wrote hands the editor the text a tool just wrote at abs, when it offered to take it.
func (b editorBuffers) Wrote(ctx context.Context, abs string, text []byte) {
	b.s.mu.Lock()
	writes := b.s.writes
	b.s.mu.Unlock()
	if !writes {
		return
	}
	id, ok := b.s.sessionFor(abs)
	if !ok {
		return
	}
	if _, err := b.s.peer().WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(id), Path: abs, Content: string(text)}); err != nil && ctx.Err() == nil {
		b.s.cfg.Log.Warn("the editor did not take a file's new text; it is on disk", "path", abs, "err", err)
	}
}

// sessionFor is the session to ask about abs in: one whose folder holds it, else any (the
// editor's buffers are its own). ok is false when there is none, or the editor offered
// neither to read nor to write files.
func (s *Server) sessionFor(abs string) (string, bool) {
	s.mu.Lock()
	offered := s.reads || s.writes
	ids := make([]string, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	if !offered || len(ids) == 0 {
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
