package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"syscall"

	"prototyper/sandbox"
)

// A tool that changes the workspace says so before it runs: which paths a call would touch,
// so that their prior state can be kept and the change taken back ([Changer.Touches]), and
// what the change would be, for the user to approve ([Changer.Preview]). Both read the
// workspace through the same checks as the call itself and write nothing.

// Changer is a tool that changes files. The loop keeps the state of every path Touches
// names before the call runs, and shows Preview to a user who approves calls.
type Changer interface {
	// Touches names, workspace-relative, every path the call would create, change or
	// remove, parents before what they hold. An error is the one the call would fail with.
	Touches(ctx context.Context, call Call) ([]string, error)
	// Preview describes the change the call would make, computed as the call computes it,
	// without making it.
	Preview(ctx context.Context, call Call) (Preview, error)
}

// TouchesFunc and PreviewFunc are the two halves of a [Changer] built with
// [Builder.Changes].
type (
	TouchesFunc func(ctx context.Context, call Call) ([]string, error)
	PreviewFunc func(ctx context.Context, call Call) (Preview, error)
)

// Preview is the change a call would make (the tool.approval_requested event's "preview").
type Preview struct {
	Path    string `json:"path"`
	Diff    string `json:"diff,omitempty"`    // unified diff of a write or an edit
	Bytes   int64  `json:"bytes"`             // size after a write or an edit; size removed by a delete
	Created bool   `json:"created,omitempty"` // the file does not exist yet
	// Unchanged says that a write or an edit would leave the file as it is: its new content is
	// the file's.
	Unchanged bool `json:"unchanged,omitempty"`
	// Removes lists what a delete would remove, with sizes.
	Removes []Removal `json:"removes,omitempty"`
	// NotUndoable lists the paths whose prior state is too large to keep: this change
	// cannot be taken back (set by the loop, from the checkpoint cap).
	NotUndoable []string `json:"notUndoable,omitempty"`
	// Fails says why the call cannot succeed as it is (its text is not in the file, its path
	// is outside the folder, an argument is wrong), when that is known before it runs: the
	// user reads it before approving. Nothing else of the preview is set then.
	Fails string `json:"fails,omitempty"`
	// Command is the command line a run_command call would run, its folder and the pattern
	// suggested for always allowing it.
	Command *CommandPreview `json:"command,omitempty"`
}

// Removal is one path a delete would remove.
type Removal struct {
	Path  string `json:"path"`
	Kind  string `json:"kind"` // KindFile, KindDir, KindSymlink
	Bytes int64  `json:"bytes,omitempty"`
}

// Kinds of what is at a path ([PathState.Kind]).
const (
	KindAbsent  = "absent"
	KindFile    = "file"
	KindDir     = "dir"
	KindSymlink = "symlink"
	// KindOther is a FIFO, socket or device: never changed by a tool, never restored.
	KindOther = "other"
)

// PathState is what is at one workspace path at one moment: nothing, a file (its permission
// bits, size, hash and, within a limit, its content), a folder (its permission bits) or a
// symbolic link (its target). It is a checkpoint's pre-image of a path, and what undo puts
// back.
type PathState struct {
	Path   string      `json:"path"`
	Kind   string      `json:"kind"`
	Mode   fs.FileMode `json:"mode,omitempty"` // permission bits of a file or folder
	Size   int64       `json:"size,omitempty"`
	Hash   string      `json:"hash,omitempty"` // SHA-256 of a file's content; "" when it was too large to read
	Target string      `json:"target,omitempty"`
	// Content is a file's content when Hash is set; it is kept apart from the state (by hash).
	Content []byte `json:"-"`
}

// Kept reports whether the state can be put back: everything but a file too large to read.
func (s PathState) Kept() bool {
	return s.Kind != KindOther && (s.Kind != KindFile || s.Hash != "")
}

// Same reports whether two states of a path are the same: kind, permission bits, content
// (by hash), link target.
func (s PathState) Same(o PathState) bool {
	if s.Kind != o.Kind {
		return false
	}
	switch s.Kind {
	case KindFile:
		return s.Mode == o.Mode && s.Size == o.Size && s.Hash == o.Hash
	case KindDir:
		return s.Mode == o.Mode
	case KindSymlink:
		return s.Target == o.Target
	}
	return true
}

// HashContent is the hash of a content as [PathState.Hash] holds it.
func HashContent(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Touches names the paths the call would change when its tool is a [Changer]; ok is false
// for a tool that changes no file (or says nothing of it).
func (r *Registry) Touches(ctx context.Context, call Call) (paths []string, ok bool, err error) {
	e, found := r.byName[call.Name]
	if !found {
		return nil, false, r.unknown(call.Name)
	}
	ch, ok := e.tool.(Changer)
	if !ok {
		return nil, false, nil
	}
	paths, err = ch.Touches(ctx, call)
	return paths, true, err
}

// Preview describes the change the call would make; nil for a tool that is no [Changer].
func (r *Registry) Preview(ctx context.Context, call Call) (*Preview, error) {
	e, found := r.byName[call.Name]
	if !found {
		return nil, r.unknown(call.Name)
	}
	ch, ok := e.tool.(Changer)
	if !ok {
		return nil, nil
	}
	p, err := ch.Preview(ctx, call)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// touchedKey is the context key of [WithTouched].
type touchedKey struct{}

// WithTouched is ctx carrying the paths [Changer.Touches] named for the call about to run,
// whose prior state the caller recorded: a call that finds more to change when it runs (a
// file put in a folder being deleted after its state was taken) refuses with [ErrAddedSince]
// rather than change what could not be taken back.
func WithTouched(ctx context.Context, paths []string) context.Context {
	return context.WithValue(ctx, touchedKey{}, paths)
}

// notTouched is the first of paths the caller did not record ([WithTouched]); false when
// every one was, or the caller recorded nothing.
func notTouched(ctx context.Context, paths []string) (string, bool) {
	recorded, ok := ctx.Value(touchedKey{}).([]string)
	if !ok {
		return "", false
	}
	known := make(map[string]bool, len(recorded))
	for _, p := range recorded {
		known[p] = true
	}
	for _, p := range paths {
		if !known[p] {
			return p, true
		}
	}
	return "", false
}

// Changes makes the tool a [Changer]: touches names the paths of a call, preview describes
// its change.
func (b *Builder) Changes(touches TouchesFunc, preview PreviewFunc) *Builder {
	b.touches, b.preview = touches, preview
	return b
}

type changerTool struct {
	*funcTool
	touches TouchesFunc
	preview PreviewFunc
}

func (t *changerTool) Touches(ctx context.Context, call Call) ([]string, error) {
	return t.touches(ctx, call)
}

func (t *changerTool) Preview(ctx context.Context, call Call) (Preview, error) {
	return t.preview(ctx, call)
}

// States reads the present state of each path (workspace-relative, as Touches names them).
// A file's content is read, hashed and returned when it holds at most keep bytes; a larger
// one has no hash and cannot be restored. Links are not followed.
func (w *Workspace) States(ctx context.Context, paths []string, keep int64) ([]PathState, error) {
	out := make([]PathState, 0, len(paths))
	for _, p := range paths {
		s, err := w.state(ctx, p, keep)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (w *Workspace) state(ctx context.Context, rel string, keep int64) (PathState, error) {
	s := PathState{Path: rel, Kind: KindAbsent}
	fi, err := w.root.Lstat(rel)
	if errors.Is(err, fs.ErrPermission) && w.lendWay(rel, false) {
		fi, err = w.root.Lstat(rel)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist), isNotDir(err):
		return s, nil
	case err != nil:
		return s, w.explain(rel, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		s.Kind = KindSymlink
		if s.Target, err = w.root.Readlink(rel); err != nil {
			return s, w.explain(rel, err)
		}
	case fi.IsDir():
		s.Kind, s.Mode = KindDir, w.ownMode(rel, fi.Mode().Perm())
	case fi.Mode().IsRegular():
		s.Kind, s.Mode, s.Size = KindFile, fi.Mode().Perm(), fi.Size()
		if fi.Size() <= keep {
			b, err := readLimited(ctx, w.root, rel, rel, keep)
			switch {
			case errors.Is(err, errOverLimit): // grew meanwhile: too large after all
			case err != nil:
				return s, w.explain(rel, err)
			default:
				s.Content, s.Hash, s.Size = b, HashContent(b), int64(len(b))
			}
		}
	default:
		s.Kind = KindOther
	}
	return s, nil
}

// Restore makes each path be as its state says (a file's state with its Content): files
// written atomically with their permission bits, folders made, links made, and what is
// absent removed (deepest first). It writes only where a tool could: .git, the app's data
// folder and its files are refused, before anything is changed. A folder to remove that
// holds a path the states do not name is refused too, since it holds something else. A
// folder whose mode keeps its owner out (0, 0500) is made with the owner let in and gets its
// mode when all is done, so that what it holds can be put back first.
func (w *Workspace) Restore(ctx context.Context, states []PathState) error {
	return w.RestoreWith(ctx, states, nil)
}

// RestoreWith is [Workspace.Restore] that writes each file whole names (a path) whole: to a
// temporary name renamed over it, never in place, so that a write cut short leaves the path as
// it was rather than a part of its new content. A nil whole writes in place where it may.
func (w *Workspace) RestoreWith(ctx context.Context, states []PathState, whole func(path string) bool) error {
	err := w.restore(ctx, states, whole)
	if gerr := w.giveBack(); err == nil {
		err = gerr
	}
	return err
}

func (w *Workspace) restore(ctx context.Context, states []PathState, whole func(string) bool) error {
	named := map[string]bool{}
	app := w.appFiles() // looked up once for all the paths
	for _, s := range states {
		if err := w.restorablePath(s.Path, app); err != nil {
			return err
		}
		if !s.Kept() {
			return pathErrorf(ErrTooLarge, s.Path, "the earlier state of %q was not kept (too large), so it cannot be put back", s.Path)
		}
		if s.Kind == KindFile && HashContent(s.Content) != s.Hash { // checked before anything is written
			return pathErrorf(ErrInvalidPath, s.Path, "the kept content of %q does not match its hash; it was not written", s.Path)
		}
		named[s.Path] = true
	}
	// what must go first: deepest first, so that a folder is empty when its turn comes
	removals := append([]PathState(nil), states...)
	sort.SliceStable(removals, func(i, j int) bool { return depth(removals[i].Path) > depth(removals[j].Path) })
	var gone []string
	for _, s := range removals {
		now, err := w.state(ctx, s.Path, 0)
		if err != nil {
			return err
		}
		if now.Kind == KindAbsent || (now.Kind == s.Kind && s.Kind != KindSymlink) {
			continue
		}
		if now.Kind == KindDir {
			w.lendWay(s.Path, true)
			entries, err := w.readDir(ctx, s.Path)
			if err != nil {
				return err
			}
			for _, e := range entries {
				child := path.Join(s.Path, e.Name())
				if named[child] {
					continue
				}
				// what a write of a named file left when the process died mid-write goes too
				if base, ok := leftoverOf(e.Name()); ok && named[path.Join(s.Path, base)] && e.Type().IsRegular() {
					gone = append(gone, child)
					continue
				}
				return pathErrorf(ErrNotEmpty, s.Path, "folder %q now holds %q, which this change did not make; move it away first", s.Path, child)
			}
		}
		if now.Kind == KindOther {
			return pathErrorf(ErrWrongKind, s.Path, "%q is now %s; it was left alone, so move it away first", s.Path, "a special file")
		}
		gone = append(gone, s.Path)
	}
	for _, p := range gone {
		w.lendWay(p, false)
		if err := w.root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return w.explain(p, err)
		}
	}
	// then what must be there: parents first
	creations := append([]PathState(nil), states...)
	sort.SliceStable(creations, func(i, j int) bool { return depth(creations[i].Path) < depth(creations[j].Path) })
	var files []PathState // written once every folder is there, made durable and visible together
	for _, s := range creations {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.Kind == KindFile {
			files = append(files, s)
			continue
		}
		if err := w.put(ctx, s); err != nil {
			return err
		}
	}
	return w.writeFiles(ctx, files, whole)
}

// restorablePath refuses a path Restore may not write: one that is not a clean relative path
// of the workspace, or that no tool may change (.git, the app's files). Unlike a path a model
// gives, any name the file system allows is accepted (control characters, bytes that are not
// UTF-8): it is a name a tool read from the disk, and it goes back as it was.
func (w *Workspace) restorablePath(p string, app *appFiles) error {
	if p == "" || strings.IndexByte(p, 0) >= 0 || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return pathErrorf(ErrInvalidPath, p, "%q is not a path inside the workspace, so it is not put back", p)
	}
	return w.checkWritableIn(p, app)
}

// put makes one path be as s says; what stood there of another kind is already gone.
func (w *Workspace) put(ctx context.Context, s PathState) error {
	switch s.Kind {
	case KindAbsent:
		return nil
	case KindDir:
		w.lendWay(s.Path, false)
		if err := w.root.Mkdir(s.Path, s.Mode|ownerAll); err != nil && !errors.Is(err, fs.ErrExist) {
			return w.explain(s.Path, err)
		}
		w.lendMu.Lock()
		if s.Mode&ownerAll != ownerAll { // what it holds is put back first: its mode comes last
			if w.lent == nil {
				w.lent = map[string]fs.FileMode{}
			}
			w.lent[s.Path] = s.Mode.Perm()
		} else {
			delete(w.lent, s.Path)
		}
		w.lendMu.Unlock()
		return w.chmod(s.Path, s.Mode|ownerAll)
	case KindSymlink:
		if now, err := w.state(ctx, s.Path, 0); err == nil && now.Kind == KindSymlink {
			if now.Target == s.Target {
				return nil
			}
			if err := w.root.Remove(s.Path); err != nil {
				return w.explain(s.Path, err)
			}
		}
		if err := w.root.Symlink(s.Target, s.Path); err != nil {
			return w.explain(s.Path, err)
		}
		return nil
	case KindFile:
		w.lendWay(s.Path, false)
		if HashContent(s.Content) != s.Hash {
			return pathErrorf(ErrInvalidPath, s.Path, "the kept content of %q does not match its hash; it was not written", s.Path)
		}
		if _, err := w.replaceFileWith(ctx, s.Path, writeReal, nil, 0, func([]byte) ([]byte, error) { return s.Content, nil }, progressNone); err != nil {
			return err
		}
		return w.chmod(s.Path, s.Mode)
	}
	return pathErrorf(ErrWrongKind, s.Path, "%q cannot be made a %s", s.Path, s.Kind)
}

func (w *Workspace) chmod(rel string, mode fs.FileMode) error {
	if err := w.root.Chmod(rel, mode.Perm()); err != nil {
		return w.explain(rel, err)
	}
	return nil
}

func depth(p string) int { return strings.Count(p, "/") }

// ownerAll is the owner's read, write and search permission, which entering a folder and
// changing what it holds need.
const ownerAll fs.FileMode = 0o700

// LendFolders lets this workspace's reads and Restore enter the named folders when their mode
// keeps their owner out (a command's chmod 0 or 0500): such a folder is given u+rwx while it
// is needed, is read as of its own mode, and gets that mode back at the end of Restore or at
// Close. An undo names the paths of the changes it takes back, so that a folder a change
// closed can be taken back; no other folder is ever opened.
func (w *Workspace) LendFolders(paths []string) {
	w.lendMu.Lock()
	defer w.lendMu.Unlock()
	if w.lendable == nil {
		w.lendable = map[string]bool{}
	}
	for _, p := range paths {
		w.lendable[p] = true
	}
}

// lendWay lets the owner into the lendable folders on the way to rel, and into rel itself
// when self, that keep them out; it reports whether it let them into any.
func (w *Workspace) lendWay(rel string, self bool) bool {
	var way []string
	for dir := path.Dir(rel); dir != "." && dir != "/"; dir = path.Dir(dir) {
		way = append([]string{dir}, way...)
	}
	if self {
		way = append(way, rel)
	}
	w.lendMu.Lock()
	defer w.lendMu.Unlock()
	lent := false
	for _, dir := range way {
		if !w.lendable[dir] {
			continue
		}
		if _, ok := w.lent[dir]; ok {
			continue
		}
		fi, err := w.root.Lstat(dir)
		if err != nil || !fi.IsDir() || fi.Mode().Perm()&ownerAll == ownerAll {
			continue
		}
		if w.root.Chmod(dir, fi.Mode().Perm()|ownerAll) != nil {
			continue // not the owner's: as closed as it was
		}
		if w.lent == nil {
			w.lent = map[string]fs.FileMode{}
		}
		w.lent[dir], lent = fi.Mode().Perm(), true
	}
	return lent
}

// ownMode is the mode of folder rel as it would be without lending.
func (w *Workspace) ownMode(rel string, now fs.FileMode) fs.FileMode {
	w.lendMu.Lock()
	defer w.lendMu.Unlock()
	if own, ok := w.lent[rel]; ok && now == own|ownerAll {
		return own
	}
	return now
}

// giveBack puts back the mode of every folder lent that is still there as it was lent,
// deepest first (a folder closed again cannot be entered to close the one inside).
func (w *Workspace) giveBack() error {
	w.lendMu.Lock()
	defer w.lendMu.Unlock()
	dirs := slices.Collect(maps.Keys(w.lent))
	sort.Slice(dirs, func(i, j int) bool { return depth(dirs[i]) > depth(dirs[j]) })
	var first error
	for _, dir := range dirs {
		own := w.lent[dir]
		delete(w.lent, dir)
		fi, err := w.root.Lstat(dir)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != own|ownerAll {
			continue // gone, or changed since: left as it is
		}
		if err := w.root.Chmod(dir, own); err != nil && first == nil {
			first = w.explain(dir, err)
		}
	}
	return first
}

// missingParents lists the folders on the way to rel that do not exist yet, outermost first:
// what a write with parents creates.
func (w *Workspace) missingParents(rel string) []string {
	var out []string
	dir := path.Dir(rel)
	for dir != "." && dir != "/" {
		if _, err := w.root.Lstat(dir); err == nil {
			break
		}
		out = append([]string{dir}, out...)
		dir = path.Dir(dir)
	}
	return out
}

// maxTreeEntries bounds the entries of a folder that delete_path removes with what it holds.
const maxTreeEntries = 10000

// tree lists rel and everything under it, parents first, refusing what no tool may change
// (.git, the app's files).
func (w *Workspace) tree(ctx context.Context, rel string) ([]Removal, error) {
	var out []Removal
	app := w.appFiles() // looked up once for the whole walk, not once per entry
	var walk func(p string, typ fs.FileMode) error
	walk = func(p string, typ fs.FileMode) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(out) >= maxTreeEntries {
			return pathErrorf(ErrTooLarge, rel, "folder %q holds more than %d entries; delete parts of it first", rel, maxTreeEntries)
		}
		if err := w.checkWritableIn(p, app); err != nil {
			return err
		}
		r := Removal{Path: p, Kind: KindFile}
		switch {
		case typ&fs.ModeSymlink != 0:
			r.Kind = KindSymlink
		case typ.IsDir():
			r.Kind = KindDir
			if fi, err := w.root.Lstat(p); err == nil {
				if err := app.refuseFolder(p, fi); err != nil {
					return err
				}
			}
		case typ.IsRegular():
			if fi, err := w.root.Lstat(p); err == nil {
				r.Bytes = fi.Size()
			}
		default:
			r.Kind = KindOther
		}
		out = append(out, r)
		if r.Kind != KindDir {
			return nil
		}
		entries, err := w.readDir(ctx, p)
		if err != nil {
			return err
		}
		// every name the folder holds, as bytes: io/fs would refuse one that is not UTF-8
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if err := walk(p+"/"+e.Name(), e.Type()); err != nil {
				return err
			}
		}
		return nil
	}
	fi, err := w.root.Lstat(rel)
	if err != nil {
		return nil, w.explain(rel, err)
	}
	return out, walk(rel, fi.Mode().Type())
}

// removalPaths are the paths of a tree, as Touches names them.
func removalPaths(rs []Removal) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Path
	}
	return out
}

func sizeOf(rs []Removal) int64 {
	var n int64
	for _, r := range rs {
		n += r.Bytes
	}
	return n
}

// previewOf turns what a write computed into a preview.
func previewOf(d *Details) Preview {
	return Preview{Path: d.Path, Diff: d.Diff, Bytes: d.Bytes, Created: d.Created, Unchanged: !d.Changed}
}

// progressNone takes the progress of a write nobody watches.
func progressNone(any) {}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// RemoveLeftovers removes what writes of the named paths left when the process died between
// filling a temporary file and renaming it over its target (.NAME.tmp-…, see [tempName]): an
// undo interrupted and then finished (or taken back) leaves none. A folder that is gone has
// nothing to remove.
func (w *Workspace) RemoveLeftovers(ctx context.Context, paths []string) error {
	stems := map[string]map[string]bool{} // folder → the names its temporary files start with
	for _, p := range paths {
		dir, base := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" {
			dir = "."
		}
		if stems[dir] == nil {
			stems[dir] = map[string]bool{}
		}
		stems[dir][sandbox.TempStem(base)] = true
	}
	for dir, names := range stems {
		entries, err := w.readDir(ctx, dir)
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrWrongKind) {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			base, ok := leftoverOf(e.Name())
			if !ok || !names["."+base] || !e.Type().IsRegular() {
				continue
			}
			if err := w.root.Remove(path.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return w.explain(path.Join(dir, e.Name()), err)
			}
		}
	}
	return nil
}
