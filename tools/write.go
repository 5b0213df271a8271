package tools

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"prototyper/sandbox"
	"prototyper/tools/diff"
)

const writeChunk = 256 << 10 // cancellation is checked between chunks

// fileChange is what a write did, for the result's Details.
type fileChange struct {
	created bool
	old     []byte // previous content, nil when created or too large to diff
	oldSize int64
}

// replaceFile writes data to rel atomically: a temporary file in the same
// folder, fsync, rename over rel, fsync of the folder. The folder is held
// open from the first step to the last, so swapping it for a symbolic link
// meanwhile does not redirect the write. A cancelled context or any failure
// removes the temporary file and leaves rel as it was.
//
// The rename replaces rel's directory entry; it never writes through it, so
// a hard link at rel (refused earlier anyway) would not carry the write to
// the other name. check, when set, sees the existing file (nil when there
// is none) before anything is written and may refuse.
func (w *Workspace) replaceFile(ctx context.Context, rel string, data []byte, how writeFlags, progress ProgressFunc) (fileChange, error) {
	return w.replaceFileWith(ctx, rel, how, nil, maxDiffInput, func([]byte) ([]byte, error) { return data, nil }, progress)
}

// writeFlags say how replaceFileWith writes.
type writeFlags int

const (
	// writeReal writes into a folder that exists.
	writeReal writeFlags = 0
	// withParents creates the missing parent folders first.
	withParents writeFlags = 1 << iota
	// dryRun computes everything up to the new content and writes nothing: a preview
	// takes the same path as the write it previews.
	dryRun
)

// maxDiffInput is the largest previous content write_file reads to show a diff.
const maxDiffInput = 1 << 20

// replaceFileWith is replaceFile with the new content computed from the old
// by produce, inside the same held-open folder. produce gets nil for an
// existing file of more than oldLimit bytes, which is not read.
func (w *Workspace) replaceFileWith(ctx context.Context, rel string, how writeFlags, check func(fi os.FileInfo) error, oldLimit int64,
	produce func(old []byte) ([]byte, error), progress ProgressFunc) (fileChange, error) {
	ch, st, err := w.stageReplace(ctx, rel, how, check, oldLimit, produce, progress)
	if err != nil || st == nil {
		return ch, err
	}
	if err := st.commit(ctx); err != nil {
		return ch, err
	}
	if w.opts.Buffers != nil { // the disk first, checkpointed; then the editor that holds the file
		w.opts.Buffers.Wrote(ctx, w.abs(rel), st.data)
	}
	return ch, nil
}

// stageReplace is replaceFileWith up to the new content written to its temporary file, not
// yet synced nor renamed: the caller commits the returned write (or aborts it). It returns
// no write for a dry run.
func (w *Workspace) stageReplace(ctx context.Context, rel string, how writeFlags, check func(fi os.FileInfo) error, oldLimit int64,
	produce func(old []byte) ([]byte, error), progress ProgressFunc) (ch fileChange, st *stagedWrite, err error) {
	dir, base := path.Split(rel)
	if dir == "" {
		dir = "."
	}
	if how&dryRun != 0 && how&withParents != 0 && dir != "." {
		if _, err := w.root.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			// the write would make the folder: the file is new
			ch.created = true
			if check != nil {
				if err := check(nil); err != nil {
					return ch, nil, err
				}
			}
			_, err := produce(nil)
			return ch, nil, err
		}
	}
	if how&withParents != 0 && how&dryRun == 0 && dir != "." {
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) { // a file stands where a folder is needed
				return ch, nil, pathErrorf(ErrWrongKind, rel, "path %q goes through a file as if it were a folder; check the path with list_dir", rel)
			}
			return ch, nil, w.explain(rel, err)
		}
	}
	parent, err := openFolder(w.root, dir)
	if err != nil {
		return ch, nil, w.explain(rel, err)
	}
	defer func() {
		if st == nil {
			parent.Close()
		}
	}()

	perm := fs.FileMode(0o644)
	fi, err := parent.Lstat(base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		ch.created = true
	case err != nil:
		return ch, nil, w.explain(rel, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := parent.Readlink(base)
		if _, err := w.root.Stat(rel); err != nil && !errors.Is(err, fs.ErrNotExist) { // judged from the workspace, not the folder
			return ch, nil, pathErrorf(ErrOutsideWorkspace, rel, "%q is a symbolic link to %q, which is outside the workspace; links are not written through, so write a file at another path", rel, target)
		}
		return ch, nil, pathErrorf(ErrSymlink, rel, "%q is a symbolic link to %q; links are not written through, so write to the path it points to instead", rel, target)
	default:
		if err := regularFile(rel, fi); err != nil {
			return ch, nil, err
		}
		perm = fi.Mode().Perm()
		ch.oldSize = fi.Size()
	}
	if check != nil {
		if err := check(fi); err != nil {
			return ch, nil, err
		}
	}
	if !ch.created && ch.oldSize <= oldLimit {
		ch.old, err = readLimited(ctx, parent, base, rel, oldLimit)
		switch {
		case errors.Is(err, errOverLimit): // grew meanwhile: no diff, and produce is told so by a nil old
		case err != nil:
			return ch, nil, w.explain(rel, err)
		}
	}
	if err := w.checkUnsaved(ctx, rel, ch); err != nil {
		return ch, nil, err
	}
	data, err := produce(ch.old)
	if err != nil || how&dryRun != 0 {
		return ch, nil, err
	}

	tmp := sandbox.TempName(base)
	f, err := parent.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return ch, nil, w.explain(rel, err)
	}
	staged := &stagedWrite{w: w, parent: parent, rel: rel, base: base, tmp: tmp, f: f, data: data}
	if !ch.created {
		f.Chmod(perm) // the umask must not change an existing file's mode
	}
	for off := 0; off < len(data); off += writeChunk {
		if err := ctx.Err(); err != nil {
			staged.abort()
			return ch, nil, cancelledf(err, "writing %q was cancelled; the file was not changed", rel)
		}
		end := min(off+writeChunk, len(data))
		if _, err := f.Write(data[off:end]); err != nil {
			staged.abort()
			return ch, nil, w.explain(rel, err)
		}
		if len(data) > writeChunk {
			progress(map[string]any{"path": rel, "bytesWritten": end, "bytesTotal": len(data)})
		}
	}
	return ch, staged, nil
}

// stagedWrite is a file's new content in its temporary file, in the folder it replaces a
// name of, which it holds open until it is committed or aborted.
type stagedWrite struct {
	w         *Workspace
	parent    *os.Root
	rel, base string
	tmp       string
	f         *os.File
	data      []byte // the new content, for an editor that holds the file (WorkspaceOptions.Buffers)
}

// commit makes one staged write durable and visible: fsync, rename over the name, fsync of
// the folder (see replaceFile).
func (s *stagedWrite) commit(ctx context.Context) error {
	if err := s.sync(); err != nil {
		s.abort()
		return err
	}
	if err := ctx.Err(); err != nil {
		s.abort()
		return cancelledf(err, "writing %q was cancelled; the file was not changed", s.rel)
	}
	if err := s.rename(); err != nil {
		s.abort()
		return err
	}
	syncFolder(s.parent) // make the rename itself durable
	s.parent.Close()
	return nil
}

// sync puts the temporary file's content on disk and closes it.
func (s *stagedWrite) sync() error {
	if err := s.f.Sync(); err != nil {
		return s.w.explain(s.rel, err)
	}
	err := s.f.Close()
	s.f = nil
	if err != nil {
		return s.w.explain(s.rel, err)
	}
	return nil
}

// rename puts the temporary file in the place of the name; the write can no longer be aborted.
func (s *stagedWrite) rename() error {
	if err := s.parent.Rename(s.tmp, s.base); err != nil {
		return s.w.explain(s.rel, err)
	}
	s.tmp = ""
	return nil
}

// abort removes what the write left (its temporary file, before the rename) and lets go of
// its folder.
func (s *stagedWrite) abort() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	if s.tmp != "" {
		s.parent.Remove(s.tmp)
		s.tmp = ""
	}
	s.parent.Close()
}

func syncFolder(parent *os.Root) {
	if d, err := parent.Open("."); err == nil {
		d.Sync()
		d.Close()
	}
}

// checkUnsaved refuses to change rel, whose disk content ch read, when its editor holds
// another text: the user's changes not saved, which the write would throw away. A file too
// large to compare, or new, is not asked about.
func (w *Workspace) checkUnsaved(ctx context.Context, rel string, ch fileChange) error {
	if w.opts.Buffers == nil || ch.created || ch.old == nil {
		return nil
	}
	text, ok, err := w.opts.Buffers.Text(ctx, w.abs(rel))
	// an editor that cannot say leaves the disk as the truth; one that keeps a file's lines
	// apart with "\n" where the disk has "\r\n" holds the same text
	if err != nil || !ok || lf(text) == lf(string(ch.old)) {
		return nil
	}
	return pathErrorf(ErrUnsaved, rel, "%q has changes in the editor that are not saved; save or undo them there, then ask again", rel)
}

// lf is s with each "\r\n" as "\n".
func lf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// abs is the absolute path of the workspace path rel.
func (w *Workspace) abs(rel string) string { return filepath.Join(w.dir, filepath.FromSlash(rel)) }

// leftoverOf says whether name is the temporary file of an interrupted write (the process
// died between filling it and renaming it, [sandbox.TempName]) and of which file of its folder.
func leftoverOf(name string) (base string, ok bool) {
	i := strings.LastIndex(name, sandbox.TempSuffix)
	if !strings.HasPrefix(name, ".") || i < 2 {
		return "", false
	}
	if _, err := hex.DecodeString(name[i+len(sandbox.TempSuffix):]); err != nil || len(name)-i-len(sandbox.TempSuffix) != 12 {
		return "", false
	}
	return name[1:i], true
}

// details describes a change for the UI.
func (w *Workspace) details(rel string, ch fileChange, data []byte) *Details {
	d := &Details{Path: rel, Bytes: int64(len(data)), Created: ch.created}
	d.Changed = ch.created || ch.old == nil || string(ch.old) != string(data)
	oldName, newName := "a/"+rel, "b/"+rel
	if ch.created {
		oldName = "/dev/null"
	}
	switch {
	case !d.Changed:
	case !ch.created && ch.old == nil:
		d.Diff = fmt.Sprintf("(the previous content, %d bytes, was too large to compare)\n", ch.oldSize)
	case isBinary(data) || isBinary(ch.old):
		d.Diff = fmt.Sprintf("Binary files %s and %s differ\n", oldName, newName)
	default:
		d.Diff = diff.Unified(oldName, newName, string(ch.old), string(data), diff.Options{MaxBytes: w.opts.MaxDiffBytes})
	}
	return d
}

func (w *Workspace) writeFileTool() Tool {
	return New("write_file", "Create a file or replace its whole content. Parent folders are created. "+
		"The path is relative to the workspace folder. To change part of an existing file, prefer edit_file.").
		Param("path", "string", "File path relative to the workspace folder, e.g. \"src/main.go\".", Required, MinLength(1)).
		Param("content", "string", "The complete new content of the file.", Required).
		Mode(Sequential).
		Changes(func(ctx context.Context, call Call) ([]string, error) {
			rel, _, err := w.writeArgs(call)
			if err != nil {
				return nil, err
			}
			return append(w.missingParents(rel), rel), nil
		}, func(ctx context.Context, call Call) (Preview, error) {
			rel, data, err := w.writeArgs(call)
			if err != nil {
				return Preview{}, err
			}
			ch, err := w.replaceFile(ctx, rel, data, withParents|dryRun, progressNone)
			if err != nil {
				return Preview{}, err
			}
			return previewOf(w.details(rel, ch, data)), nil
		}).
		Handle(func(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
			rel, data, err := w.writeArgs(call)
			if err != nil {
				return Result{}, err
			}
			ch, err := w.replaceFile(ctx, rel, data, withParents, progress)
			if err != nil {
				return Result{}, err
			}
			d := w.details(rel, ch, data)
			verb := "Updated"
			switch {
			case ch.created:
				verb = "Created"
			case !d.Changed:
				verb = "Rewrote (unchanged)"
			}
			return Result{Content: fmt.Sprintf("%s %s (%d bytes).", verb, rel, len(data)), Details: d}, nil
		})
}

// writeArgs are the path and content of a write_file call, checked.
func (w *Workspace) writeArgs(call Call) (string, []byte, error) {
	rel, err := w.writablePath(call.Args.String("path"))
	if err != nil {
		return "", nil, err
	}
	data := []byte(call.Args.String("content"))
	if int64(len(data)) > w.opts.MaxWriteBytes {
		return "", nil, pathErrorf(ErrTooLarge, rel, "the content for %q is %d bytes, over the limit of %d; write a smaller file", rel, len(data), w.opts.MaxWriteBytes)
	}
	return rel, data, nil
}
