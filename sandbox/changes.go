package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Kind says what happened to a path.
type Kind string

// The kinds of change, in the words the rest of the app uses for a path's state.
const (
	Created     Kind = "created"  // the path did not exist (or, after a Deleted change of it, had another type)
	Modified    Kind = "modified" // a file's bytes or a link's target changed
	Deleted     Kind = "deleted"  // the path and, for a folder, everything in it is gone
	ModeChanged Kind = "mode"     // only the permission bits changed
)

// Type is the type of file a change is about.
type Type string

// The types of file a change set holds. Other types (FIFOs, sockets, devices) the command
// made are listed in [ChangeSet.Skipped] and never applied.
const (
	File    Type = "file"
	Dir     Type = "dir"
	Symlink Type = "symlink"
)

// Change is one path's change. A path replaced by one of another type is a Deleted change
// followed by a Created one.
type Change struct {
	// Path is slash-separated and relative to the workspace; its names may hold any bytes.
	Path string
	Kind Kind
	// Type is the new entry's type, or the removed entry's for Deleted.
	Type Type
	// Mode holds the permission bits of the new entry (setuid and setgid dropped).
	Mode fs.FileMode
	// Target is a symlink's new target.
	Target string
	// Size is a file's new size in bytes.
	Size int64
	// Content is the path of a file's new bytes, kept until [ChangeSet.Close]; empty but
	// for Created and Modified files.
	Content string
}

// ChangeSet is what a command did to the workspace, computed from its copy-on-write layer
// when it ended and not yet applied. Changes are in the order [ChangeSet.Apply] makes them:
// a folder before what it holds, a deletion before what replaces it.
type ChangeSet struct {
	Changes []Change
	// Skipped lists paths of entries the command made that are no file, folder or link.
	Skipped []string
	// Bytes is the sum of the new files' sizes.
	Bytes int64

	dir   string    // the staged contents
	stage *stageDir // the run's folder, locked until Close
}

// Empty reports whether the command changed nothing.
func (cs *ChangeSet) Empty() bool { return cs == nil || len(cs.Changes) == 0 }

// Close removes the staged contents. The change set cannot be applied afterwards.
func (cs *ChangeSet) Close() error {
	if cs == nil || cs.dir == "" {
		return nil
	}
	err := os.RemoveAll(cs.dir)
	if cs.stage != nil {
		err = cs.stage.remove()
	}
	cs.dir = ""
	return err
}

// ReadFile returns the new bytes of a Created or Modified file.
func (cs *ChangeSet) ReadFile(c Change) ([]byte, error) {
	if c.Content == "" {
		return nil, fmt.Errorf("%s: no new content in a %s %s change", c.Path, c.Kind, c.Type)
	}
	return os.ReadFile(c.Content)
}

// modeMask keeps the permission and sticky bits: a command never leaves a setuid file.
const modeMask = fs.ModePerm | fs.ModeSticky

// collector walks an overlay upper layer against its lower layer, the workspace.
type collector struct {
	ctx          context.Context
	upper, lower *os.Root
	cs           *ChangeSet
	staged       int
}

// collect computes the change set of upper (an overlayfs upper folder) over the workspace
// ws, copying new file contents into stage. It stops at the next entry when ctx is done
// (Stop): a command that left many files is not walked to its end first.
func collect(ctx context.Context, upper, ws, stage string) (*ChangeSet, error) {
	u, err := os.OpenRoot(upper)
	if err != nil {
		return nil, err
	}
	defer u.Close()
	l, err := os.OpenRoot(ws)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	if err := os.Mkdir(stage, 0o700); err != nil {
		return nil, err
	}
	c := &collector{ctx: ctx, upper: u, lower: l, cs: &ChangeSet{dir: stage}}
	if err := c.dir(".", isOpaque(upper)); err != nil {
		c.cs.Close()
		return nil, err
	}
	return c.cs, nil
}

// dir emits the changes inside the folder rel. Under an opaque folder (one the command
// deleted and made again), nothing of the lower folder shows through.
func (c *collector) dir(rel string, opaque bool) error {
	f, err := c.openUpper(rel, os.O_RDONLY)
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return err
	}
	slices.Sort(names)
	if opaque {
		if lf, err := c.lower.Open(rel); err == nil {
			if fi, err := lf.Stat(); err == nil && fi.IsDir() && c.lowerIsDir(rel) {
				lnames, _ := lf.Readdirnames(-1)
				slices.Sort(lnames)
				for _, n := range lnames {
					if _, found := slices.BinarySearch(names, n); !found {
						lfi, err := c.lower.Lstat(join(rel, n))
						if err == nil {
							c.add(Change{Path: join(rel, n), Kind: Deleted, Type: typeOf(lfi)})
						}
					}
				}
			}
			lf.Close()
		}
	}
	for _, n := range names {
		if err := c.entry(join(rel, n), opaque); err != nil {
			return err
		}
	}
	return nil
}

// lowerIsDir reports whether rel is a real folder of the workspace (no link on the way).
func (c *collector) lowerIsDir(rel string) bool {
	for p := rel; p != "."; p = path.Dir(p) {
		fi, err := c.lower.Lstat(p)
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// lowerLstat is the workspace's entry at rel, or nil when there is none (or a parent of it
// is no real folder, which the command saw replaced).
func (c *collector) lowerLstat(rel string) fs.FileInfo {
	if !c.lowerIsDir(path.Dir(rel)) {
		return nil
	}
	fi, err := c.lower.Lstat(rel)
	if err != nil {
		return nil
	}
	return fi
}

func (c *collector) entry(rel string, parentOpaque bool) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	fi, err := c.upper.Lstat(rel)
	if err != nil {
		return err
	}
	low := c.lowerLstat(rel)
	replace := func(t Type) { // the lower entry goes first when the type changes
		if low != nil && typeOf(low) != t {
			c.add(Change{Path: rel, Kind: Deleted, Type: typeOf(low)})
			low = nil
		}
	}
	mode := fi.Mode() & modeMask
	switch {
	case isWhiteout(fi):
		if low != nil {
			c.add(Change{Path: rel, Kind: Deleted, Type: typeOf(low)})
		}
	case fi.IsDir():
		replace(Dir)
		opaque := parentOpaque || low == nil || isOpaque(filepath.Join(c.upper.Name(), rel))
		switch {
		case low == nil:
			c.add(Change{Path: rel, Kind: Created, Type: Dir, Mode: fi.Mode().Perm()})
		case low.Mode()&modeMask != mode:
			c.add(Change{Path: rel, Kind: ModeChanged, Type: Dir, Mode: fi.Mode().Perm()})
		}
		return c.dir(rel, opaque)
	case fi.Mode().IsRegular():
		replace(File)
		if low != nil {
			same, err := c.sameBytes(rel, fi, low)
			if err != nil {
				return err
			}
			if same {
				if low.Mode()&modeMask != mode {
					c.add(Change{Path: rel, Kind: ModeChanged, Type: File, Mode: mode})
				}
				return nil
			}
		}
		staged, err := c.stage(rel)
		if err != nil {
			return err
		}
		kind := Created
		if low != nil {
			kind = Modified
		}
		c.cs.Bytes += fi.Size()
		c.add(Change{Path: rel, Kind: kind, Type: File, Mode: mode, Size: fi.Size(), Content: staged})
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := c.upper.Readlink(rel)
		if err != nil {
			return err
		}
		replace(Symlink)
		kind := Created
		if low != nil {
			if old, err := c.lower.Readlink(rel); err == nil && old == target {
				return nil
			}
			kind = Modified
		}
		c.add(Change{Path: rel, Kind: kind, Type: Symlink, Target: target})
	default:
		c.cs.Skipped = append(c.cs.Skipped, rel)
	}
	return nil
}

func (c *collector) add(ch Change) { c.cs.Changes = append(c.cs.Changes, ch) }

// sameBytes compares the upper file rel with the workspace's.
func (c *collector) sameBytes(rel string, up, low fs.FileInfo) (bool, error) {
	if !low.Mode().IsRegular() || up.Size() != low.Size() {
		return false, nil
	}
	a, err := c.openUpper(rel, os.O_RDONLY|syscall.O_NOFOLLOW)
	if err != nil {
		return false, err
	}
	defer a.Close()
	b, err := c.lower.Open(rel)
	if err != nil {
		return false, nil
	}
	defer b.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(a, ba)
		nb, _ := io.ReadFull(b, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea != nil {
			return true, nil
		}
	}
}

// stage copies the upper file rel into the stage folder under a number, since its name
// may hold any bytes.
func (c *collector) stage(rel string) (string, error) {
	src, err := c.openUpper(rel, os.O_RDONLY|syscall.O_NOFOLLOW)
	if err != nil {
		return "", err
	}
	defer src.Close()
	c.staged++
	name := filepath.Join(c.cs.dir, strconv.Itoa(c.staged))
	dst, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return "", err
	}
	return name, dst.Close()
}

// openUpper opens the upper entry rel (a file or a folder) for reading. One the command
// left without its owner's read permission (chmod 0) is made readable first: the app's user
// owns the layer, which is thrown away once collected, and the entry's mode was read already.
func (c *collector) openUpper(rel string, flag int) (*os.File, error) {
	f, err := c.upper.OpenFile(rel, flag, 0)
	if errors.Is(err, fs.ErrPermission) && c.upper.Chmod(rel, 0o700) == nil {
		f, err = c.upper.OpenFile(rel, flag, 0)
	}
	return f, err
}

// isWhiteout reports an overlayfs whiteout: a character device 0/0.
func isWhiteout(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fi.Mode()&fs.ModeCharDevice != 0 && st.Rdev == 0
}

// isOpaque reports an overlayfs opaque folder (mounted with userxattr, so in the user.
// namespace; trusted. when an administrator mounted it).
func isOpaque(dir string) bool {
	buf := make([]byte, 8)
	for _, attr := range []string{"user.overlay.opaque", "trusted.overlay.opaque"} {
		if n, err := syscall.Getxattr(dir, attr, buf); err == nil && n == 1 && buf[0] == 'y' {
			return true
		}
	}
	return false
}

func typeOf(fi fs.FileInfo) Type {
	switch {
	case fi.IsDir():
		return Dir
	case fi.Mode()&fs.ModeSymlink != 0:
		return Symlink
	default:
		return File
	}
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// Apply makes the changes in the workspace ws, in order. Each file is written to a
// temporary file in its folder and renamed over its path, so a reader never sees half a
// file; every operation goes through an [os.Root] of ws, so no link leads outside it, and
// none goes through a link inside it either (a folder that became a link meanwhile).
// Apply is meant to be called after the caller checkpointed the paths it changes: when it
// fails part-way, the error says how many changes were made.
func (cs *ChangeSet) Apply(ws string) error { return cs.ApplyContext(context.Background(), ws) }

// ErrTakenBack is returned by [ChangeSet.ApplyContext] stopped part-way: the changes made
// were all taken back, the workspace is as it was.
var ErrTakenBack = errors.New("the changes applied were taken back")

// ApplyContext is [ChangeSet.Apply] that a done ctx (Stop) ends before its next change: what
// it changed until then is taken back, newest first (a file replaced or a path deleted was
// kept aside under a temporary name until the end, a path made is removed, a mode set back),
// and the error wraps ctx's and [ErrTakenBack]. The time this takes is that of the changes
// already made, not of the rest.
func (cs *ChangeSet) ApplyContext(ctx context.Context, ws string) error {
	if cs == nil {
		return nil
	}
	if cs.dir == "" && len(cs.Changes) > 0 {
		return errors.New("the change set was closed before it was applied")
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return fmt.Errorf("the workspace folder %s cannot be opened: %w", ws, err)
	}
	defer root.Close()
	// A folder's mode is set after everything in it was made, deepest last to first: the
	// command may have left a folder its owner cannot write (chmod 500) or enter (chmod 0).
	var dirModes []Change
	var made []applied
	for i, c := range cs.Changes {
		if err := ctx.Err(); err != nil {
			if rerr := takeBack(root, made); rerr != nil {
				return fmt.Errorf("applying the command's changes was stopped after %d of %d, and they could not all be taken back (%v): %w", i, len(cs.Changes), rerr, err)
			}
			return fmt.Errorf("%w after %d of %d: %w", ErrTakenBack, i, len(cs.Changes), err)
		}
		a, err := applyOne(root, c)
		if err != nil {
			forget(root, made)
			return fmt.Errorf("applying the command's changes stopped at %s after %d of %d: %w", c.Path, i, len(cs.Changes), err)
		}
		made = append(made, a)
		if c.Type == Dir && c.Kind != Deleted {
			dirModes = append(dirModes, c)
		}
	}
	forget(root, made)
	for _, c := range slices.Backward(dirModes) {
		if err := root.Chmod(c.Path, c.Mode); err != nil { // exact bits, whatever the umask
			return fmt.Errorf("applying the command's changes stopped at the mode of %s: %w", c.Path, err)
		}
	}
	// One flush of the file system for the whole set: a sync per file would cost an npm
	// install's worth of disk flushes. A crash of the app needs none (the kernel has the
	// data); this is for a power cut after Apply returned.
	if d, err := root.Open("."); err == nil {
		unix.Syncfs(int(d.Fd()))
		d.Close()
	}
	return nil
}

// applied is how one change made is taken back: the path it made (removed), or what was
// there before, kept aside (renamed back), or the mode it had (set back).
type applied struct {
	path    string
	made    bool        // the path did not exist: it is removed
	aside   string      // what the path was, under this name beside it
	mode    fs.FileMode // the mode the path had, when the change set it
	setMode bool
	lost    bool // what was there could not be kept aside: it cannot be put back
}

// takeBack undoes the changes made, newest first.
func takeBack(root *os.Root, made []applied) error {
	var first error
	note := func(err error) {
		if err != nil && !errors.Is(err, fs.ErrNotExist) && first == nil {
			first = err
		}
	}
	for _, a := range slices.Backward(made) {
		switch {
		case a.aside != "":
			note(root.Rename(a.aside, a.path))
		case a.made:
			note(root.Remove(a.path))
		case a.setMode:
			note(root.Chmod(a.path, a.mode))
		case a.lost:
			note(fmt.Errorf("%s was replaced and could not be kept aside", a.path))
		}
	}
	return first
}

// forget removes what the changes made kept aside: they stand.
func forget(root *os.Root, made []applied) {
	for _, a := range made {
		if a.aside != "" {
			root.RemoveAll(a.aside)
		}
	}
}

func applyOne(root *os.Root, c Change) (applied, error) {
	a := applied{path: c.Path}
	if !filepath.IsLocal(c.Path) {
		return a, fmt.Errorf("%q is not a path inside the workspace", c.Path)
	}
	if err := noLinkOnTheWay(root, c); err != nil {
		return a, err
	}
	before, lerr := root.Lstat(c.Path)
	switch {
	case c.Kind == Deleted:
		if errors.Is(lerr, fs.ErrNotExist) {
			return a, nil // gone already
		} else if lerr != nil {
			return a, lerr
		}
		a.aside = tempName(c.Path) // removed at the end, when nothing can be taken back any more
		return a, root.Rename(c.Path, a.aside)
	case c.Type == Dir: // made, or its mode changed: Apply sets its mode once what it holds is made
		err := root.Mkdir(c.Path, 0o700)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return a, err
		}
		if err == nil {
			a.made = true
		} else if lerr == nil {
			a.mode, a.setMode = before.Mode()&modeMask, true
		}
		return a, nil
	case c.Kind == ModeChanged:
		if lerr == nil {
			a.mode, a.setMode = before.Mode()&modeMask, true
		}
		return a, root.Chmod(c.Path, c.Mode)
	}
	// a file or a link replaces what was there, kept aside (a second name of it) until the end
	if lerr == nil && !before.IsDir() {
		a.aside = tempName(c.Path)
		if root.Link(c.Path, a.aside) != nil { // not linkable here (another user's file): replaced for good
			a.aside, a.lost = "", true
		}
	} else {
		a.made = errors.Is(lerr, fs.ErrNotExist)
	}
	var err error
	if c.Type == Symlink {
		tmp := tempName(c.Path)
		if err = root.Symlink(c.Target, tmp); err == nil {
			err = renameOrRemove(root, tmp, c.Path)
		}
	} else {
		err = writeFile(root, c)
	}
	if err != nil && a.aside != "" {
		root.Remove(a.aside)
	}
	return a, err
}

// noLinkOnTheWay refuses a change whose path goes through a link: an os.Root follows a link
// that stays inside the workspace, and the command saw a folder there (a link that was there
// when it ran came as a deletion before the folder), so one now is not the folder the change
// is about (another run, say, made it meanwhile) and could lead into .git. A Dir change and a
// mode change are about the path itself too, which Mkdir and Chmod would follow.
func noLinkOnTheWay(root *os.Root, c Change) error {
	last := path.Dir(c.Path) // a removal or a rename onto the path does not follow it
	if c.Kind == ModeChanged || c.Type == Dir && c.Kind != Deleted {
		last = c.Path
	}
	for p := last; p != "." && p != "/"; p = path.Dir(p) {
		fi, err := root.Lstat(p)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%q is now a link, which a change is never applied through", p)
		}
	}
	return nil
}

func writeFile(root *os.Root, c Change) error {
	src, err := os.Open(c.Content)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp := tempName(c.Path)
	dst, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if err == nil {
		err = dst.Chmod(c.Mode)
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		root.Remove(tmp)
		return err
	}
	return renameOrRemove(root, tmp, c.Path)
}

func renameOrRemove(root *os.Root, tmp, dst string) error {
	if err := root.Rename(tmp, dst); err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}

// tempName is a free name beside p for a file about to be renamed onto p ([TempName]), so
// that undo after the app was killed mid-Apply removes it as what an interrupted write left.
func tempName(p string) string {
	return path.Join(path.Dir(p), TempName(path.Base(p)))
}

// TempSuffix marks the temporary file a write fills before it renames it over its target.
const TempSuffix = ".tmp-"

// TempName is the name of the temporary file a write of the file named base fills before it
// renames it over base: [TempStem], [TempSuffix] and 12 random hex digits. The workspace's
// file tools and [ChangeSet.Apply] both write so, and undo knows such a name as the leftover
// of a write that was killed.
func TempName(base string) string {
	var b [6]byte
	rand.Read(b[:])
	return TempStem(base) + TempSuffix + hex.EncodeToString(b[:])
}

// TempStem is how the temporary files of base begin: its name hidden, cut so that the whole
// name stays within 255 bytes, the longest name most file systems allow.
func TempStem(base string) string {
	name := "." + base
	if len(name) > 255-24 {
		name = name[:255-24]
	}
	return name
}
