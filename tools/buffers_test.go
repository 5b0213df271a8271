package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// editorBuffers holds the unsaved text of some files, by absolute path.
type editorBuffers map[string]string

func (b editorBuffers) Text(_ context.Context, abs string) (string, bool, error) {
	text, ok := b[abs]
	return text, ok, nil
}

// TestReadFileReadsTheEditorsUnsavedTextAndStillRefusesWhatItMayNotRead: with Buffers,
// read_file returns an open file's text as the editor holds it, the disk's for a file the
// editor does not know, and refuses a file outside the workspace however the editor has it.
func TestReadFileReadsTheEditorsUnsavedTextAndStillRefusesWhatItMayNotRead(t *testing.T) {
	buffers := editorBuffers{}
	tw := newTestWorkspaceWith(t, WorkspaceOptions{Buffers: buffers})
	tw.write(t, "open.txt", "saved\n")
	tw.write(t, "closed.txt", "on disk\n")
	buffers[filepath.Join(tw.ws, "open.txt")] = "unsaved\n"
	buffers[tw.secret] = "the editor's secret\n"
	if err := os.Symlink(tw.secret, filepath.Join(tw.ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if got := tw.run(t, "read_file", map[string]any{"path": "open.txt"}); got.IsError || got.Content != "unsaved\n" {
		t.Errorf("read_file open.txt = %+v, want the editor's text", got)
	}
	if got := tw.run(t, "read_file", map[string]any{"path": "closed.txt"}); got.IsError || got.Content != "on disk\n" {
		t.Errorf("read_file closed.txt = %+v, want the disk's text", got)
	}
	if got := tw.run(t, "read_file", map[string]any{"path": "link.txt"}); !got.IsError {
		t.Errorf("read_file through a link out of the workspace = %+v, want a refusal", got)
	}
}
