package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// editorBuffers holds the text of some open files, by absolute path, and what it was told
// the tools wrote.
type editorBuffers struct {
	mu    sync.Mutex
	open  map[string]string
	wrote map[string]string
}

func newEditorBuffers() *editorBuffers {
	return &editorBuffers{open: map[string]string{}, wrote: map[string]string{}}
}

func (b *editorBuffers) Text(_ context.Context, abs string) (string, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	text, ok := b.open[abs]
	return text, ok, nil
}

func (b *editorBuffers) Wrote(_ context.Context, abs string, text []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.wrote[abs] = string(text)
	if _, ok := b.open[abs]; ok {
		b.open[abs] = string(text)
	}
}

// TestReadFileReadsTheEditorsUnsavedTextAndStillRefusesWhatItMayNotRead: with Buffers,
// read_file returns an open file's text as the editor holds it, the disk's for a file the
// editor does not know, and refuses a file outside the workspace however the editor has it.
func TestReadFileReadsTheEditorsUnsavedTextAndStillRefusesWhatItMayNotRead(t *testing.T) {
	buffers := newEditorBuffers()
	tw := newTestWorkspaceWith(t, WorkspaceOptions{Buffers: buffers})
	tw.write(t, "open.txt", "saved\n")
	tw.write(t, "closed.txt", "on disk\n")
	buffers.open[filepath.Join(tw.ws, "open.txt")] = "unsaved\n"
	buffers.open[tw.secret] = "the editor's secret\n"
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

// TestWritesNeverThrowAwayTheEditorsUnsavedTextAndTellTheEditorWhatTheyWrote: a write or an
// edit of a file the editor holds with other text than the disk's is refused and changes
// nothing; one the editor holds as saved, or does not hold, is written on disk and handed
// to the editor.
func TestWritesNeverThrowAwayTheEditorsUnsavedTextAndTellTheEditorWhatTheyWrote(t *testing.T) {
	buffers := newEditorBuffers()
	tw := newTestWorkspaceWith(t, WorkspaceOptions{Buffers: buffers})
	tw.write(t, "dirty.txt", "one\n")
	tw.write(t, "clean.txt", "one\n")
	dirty, clean := filepath.Join(tw.ws, "dirty.txt"), filepath.Join(tw.ws, "clean.txt")
	buffers.open[dirty] = "one\ntyped, not saved\n"
	buffers.open[clean] = "one\n"

	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "dirty.txt", "content": "two\n"}},
		{"edit_file", map[string]any{"path": "dirty.txt", "old_string": "one", "new_string": "two"}},
	} {
		_, err := tw.exec(t, t.Context(), call.tool, call.args, nil)
		if !errors.Is(err, ErrUnsaved) {
			t.Errorf("%s of a file with unsaved text: %v, want ErrUnsaved", call.tool, err)
		}
	}
	if got := tw.read(t, "dirty.txt"); got != "one\n" {
		t.Errorf("dirty.txt is %q on disk, want it untouched", got)
	}
	if _, told := buffers.wrote[dirty]; told {
		t.Error("the editor was handed a write that did not happen")
	}

	if res := tw.run(t, "edit_file", map[string]any{"path": "clean.txt", "old_string": "one", "new_string": "two"}); res.IsError {
		t.Fatalf("edit_file of a saved file: %s", res.Content)
	}
	if res := tw.run(t, "write_file", map[string]any{"path": "new.txt", "content": "new\n"}); res.IsError {
		t.Fatalf("write_file of a new file: %s", res.Content)
	}
	if got := tw.read(t, "clean.txt"); got != "two\n" || buffers.wrote[clean] != "two\n" || buffers.open[clean] != "two\n" {
		t.Errorf("clean.txt is %q on disk, the editor was told %q", got, buffers.wrote[clean])
	}
	if buffers.wrote[filepath.Join(tw.ws, "new.txt")] != "new\n" {
		t.Errorf("the editor was told %v, want new.txt's text", buffers.wrote)
	}
}
