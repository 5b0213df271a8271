package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// WorkspaceOptions configure the workspace tools. Zero values take the
// defaults named on each field.
type WorkspaceOptions struct {
	// ProtectedDirs are folders no tool may write into, besides .git: the
	// app's data folder at least. Absolute, or relative to the workspace. A
	// folder that is the workspace itself, or holds it, protects nothing here
	// (it would make the whole workspace read-only); ProtectedFiles guards the
	// app's files in it.
	ProtectedDirs []string
	// ProtectedFiles are files no tool may read, write, edit or delete: the
	// app's database at least. Each also covers the files beside it whose
	// names are its name followed by a dot or a dash (its lock and backups).
	// They are recognised by identity as well as by name, so a symbolic or
	// hard link to one is refused too, and a folder holding one cannot be
	// deleted. Absolute, or relative to the workspace.
	ProtectedFiles []string
	// ConfigDirs are the folders of the app's own configuration: the workspace's
	// [WorkspaceConfigDir] and the user's config folder. No tool reads, lists,
	// searches, writes, edits or deletes anything in them, nor creates one. They
	// are recognised by name in the folder they are (or would be) in, letter case
	// ignored, and by identity, so a symbolic link to one or to a file in it, a
	// hard link to such a file and a path through ".." are refused too; a folder
	// holding one cannot be deleted, and a listing shows one without its entries.
	// Absolute, or relative to the workspace. A folder that is the workspace
	// itself, or holds it, is left out (it would make the whole workspace
	// unreachable).
	ConfigDirs []string
	// ConfigFiles are files of the app's own configuration kept elsewhere (an MCP
	// server file named on the command line, which may lie in the workspace): no
	// tool reads, writes, edits or deletes one, recognised by identity like the
	// database, and a folder holding one cannot be deleted. Absolute, or relative
	// to the workspace; one that does not exist yet is refused by its name (and where
	// a link of its name leads), so that no tool makes it.
	ConfigFiles []string

	MaxReadBytes     int64 // read_file returns at most this much; default 256 KiB
	MaxWriteBytes    int64 // write_file and edit_file refuse larger content; default 16 MiB
	MaxListEntries   int   // list_dir stops after this many entries; default 500
	MaxListDepth     int   // deepest recursion list_dir accepts; default 10
	MaxSearchResults int   // search_files stops after this many matching lines; default 200
	MaxSearchFile    int64 // search_files skips larger files; default 2 MiB
	MaxDiffBytes     int   // diffs in Details are cut here; default 64 KiB

	// Commands offers run_command (the app's agent does; a toolbox of file tools alone
	// does not).
	Commands bool
	// UnconfinedCommands reports whether the user allowed commands to run unconfined where
	// the sandbox cannot start (read at each call); nil never allows it.
	UnconfinedCommands func() bool
	// CommandStageDir holds a command's changed files until they are applied; default
	// os.TempDir().
	CommandStageDir string
	// Servers, when set, offers start_server and stop_server; the servers run on in it
	// after their calls.
	Servers *Servers
	// Buffers, when set, is the editor that holds the workspace's files open: read_file reads
	// a file's text from it (the file must still be one read_file may read on disk), a write
	// or an edit of a file whose editor text differs from the disk is refused ([ErrUnsaved])
	// rather than throw the unsaved text away, and what a write or an edit put on disk is
	// handed to it. nil: the disk alone.
	Buffers Buffers
}

// Buffers are an editor's open files.
type Buffers interface {
	// Text returns the text of the file at the absolute path abs; ok is false when the
	// editor cannot say (the disk is read then).
	Text(ctx context.Context, abs string) (text string, ok bool, err error)
	// Wrote tells the editor the new text of abs, just written on disk, so that it shows
	// it (and keeps it as the agent's change).
	Wrote(ctx context.Context, abs string, text []byte)
}

func (o *WorkspaceOptions) defaults() {
	set64 := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	set := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	set64(&o.MaxReadBytes, 256<<10)
	set64(&o.MaxWriteBytes, 16<<20)
	set(&o.MaxListEntries, 500)
	set(&o.MaxListDepth, 10)
	set(&o.MaxSearchResults, 200)
	set64(&o.MaxSearchFile, 2<<20)
	set(&o.MaxDiffBytes, 64<<10)
}

// Workspace is the folder the user opened, held by one [os.Root]. Its tools
// are safe for concurrent use; Close it when the workspace changes.
type Workspace struct {
	root      *os.Root
	dir       string
	opts      WorkspaceOptions
	protected []string // ProtectedDirs as absolute paths, without the workspace and its parents
	databases []string // ProtectedFiles as absolute paths
	configs   []string // ConfigDirs as absolute paths, without the workspace and its parents
	cfgFiles  []string // ConfigFiles as absolute paths

	appNamesMu sync.Mutex
	appNames   map[string]appFileListing // by database path: its folder's entries that are app files

	lendMu   sync.Mutex
	lendable map[string]bool        // folders whose owner may be let in ([Workspace.LendFolders])
	lent     map[string]fs.FileMode // folders given u+rwx for now, by their own mode
}

// OpenWorkspace opens dir for the workspace tools.
func OpenWorkspace(dir string, opts WorkspaceOptions) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace folder %q: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("the workspace folder %s does not exist (any more): choose an existing folder, or create it again", dir)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("the workspace folder %s cannot be read (permission denied): choose an existing folder you can read, or change its permissions", dir)
	case err != nil:
		return nil, fmt.Errorf("workspace folder %q cannot be opened: %w; choose an existing folder", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace %q is a file, not a folder; choose a folder", dir)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace folder %q cannot be opened: %w", dir, err)
	}
	opts.defaults()
	w := &Workspace{root: root, dir: abs, opts: opts}
	for _, p := range opts.ProtectedDirs {
		if p = absIn(abs, p); !holds(p, abs) {
			w.protected = append(w.protected, p)
		}
	}
	for _, p := range opts.ProtectedFiles {
		w.databases = append(w.databases, absIn(abs, p))
	}
	for _, p := range opts.ConfigFiles {
		w.cfgFiles = append(w.cfgFiles, absIn(abs, p))
	}
	for _, p := range opts.ConfigDirs {
		if p = absIn(abs, p); !holds(p, abs) {
			w.configs = append(w.configs, p)
		}
	}
	return w, nil
}

// absIn makes p absolute, relative to the folder dir.
func absIn(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// holds reports whether folder is dir or one of its parents, by name or by
// identity.
func holds(folder, dir string) bool {
	if r, err := filepath.Rel(folder, dir); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return true
	}
	ffi, err := os.Stat(folder)
	if err != nil {
		return false
	}
	for d := dir; ; {
		if fi, err := os.Stat(d); err == nil && os.SameFile(fi, ffi) {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

// Dir returns the workspace folder as an absolute path.
func (w *Workspace) Dir() string { return w.dir }

// Close releases the workspace folder; the tools fail afterwards.
func (w *Workspace) Close() error {
	w.giveBack()
	return w.root.Close()
}

// Tools returns the workspace tools, ready for [NewRegistry].
func (w *Workspace) Tools() []Tool {
	ts := []Tool{
		w.readFileTool(), w.listDirTool(), w.searchFilesTool(),
		w.writeFileTool(), w.editFileTool(), w.makeDirTool(), w.deletePathTool(),
	}
	if w.opts.Commands {
		ts = append(ts, w.runCommandTool())
	}
	if w.opts.Servers != nil {
		ts = append(ts, w.startServerTool(), w.stopServerTool())
	}
	return ts
}

// WorkspaceDefinitions lists the workspace tools' definitions (names, schemas, modes,
// default approvals) without opening a folder: what the settings show before any workspace
// is chosen. The tools it builds are never executed.
func WorkspaceDefinitions() []Definition {
	w := &Workspace{opts: WorkspaceOptions{Commands: true, Servers: NewServers()}}
	w.opts.defaults()
	tools := w.Tools()
	defs := make([]Definition, len(tools))
	for i, t := range tools {
		defs[i] = t.Definition()
	}
	return defs
}

const (
	maxPathBytes      = 4096
	maxComponentBytes = 255
)

// lookAlikes are characters that read as a dot or a slash but are not one:
// a name made of them would show as "../x" in the UI and in the model's
// context while meaning something else on disk.
var lookAlikes = map[rune]string{
	'\u2024': ".", '\u2025': "..", '\u2026': "...", '\uFE52': ".", '\uFF0E': ".", '\u3002': ".",
	'\u2215': "/", '\u2044': "/", '\u29F8': "/", '\uFF0F': "/", '\u2571': "/",
	'\u2216': "\\", '\u29F5': "\\", '\u29F9': "\\", '\uFE68': "\\", '\uFF3C': "\\",
}

// invisible are format characters that change how a name displays
// (direction overrides, zero-width characters) without being visible.
func invisible(r rune) bool {
	switch {
	case r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069',
		r == '\u200E', r == '\u200F', r >= '\u200B' && r <= '\u200D', r == '\u2060', r == '\uFEFF':
		return true
	}
	return false
}

// cleanFolder is clean for a folder argument, where "" means the workspace itself.
func cleanFolder(p string) (string, error) {
	if p == "" {
		p = "."
	}
	return clean(p)
}

// clean checks a workspace-relative path as text and returns it cleaned
// (slash-separated, no "." or ".." components). It refuses what no file in
// the workspace can be named: empty, absolute, escaping with "..", NUL and
// control characters, look-alike separators, over-long names. "." is the
// workspace folder itself.
func clean(p string) (string, error) {
	q := fmt.Sprintf("%q", p)
	if len(p) > 120 {
		q = fmt.Sprintf("%q… (%d bytes)", p[:100], len(p))
	}
	switch {
	case p == "":
		return "", pathErrorf(ErrInvalidPath, p, "the path is empty; give a path relative to the workspace folder, such as \"src/main.go\"")
	case len(p) > maxPathBytes:
		return "", pathErrorf(ErrInvalidPath, p, "path %s is %d bytes long, over the limit of %d; use a shorter path", q, len(p), maxPathBytes)
	case strings.IndexByte(p, 0) >= 0:
		return "", pathErrorf(ErrInvalidPath, p, "path %s contains a NUL byte, which no file name can hold; remove it", q)
	case !utf8.ValidString(p):
		return "", pathErrorf(ErrInvalidPath, p, "path %s is not valid UTF-8; use the name exactly as list_dir shows it", q)
	}
	for _, r := range p {
		if s, ok := lookAlikes[r]; ok {
			return "", pathErrorf(ErrInvalidPath, p, "path %s contains %q (U+%04X), which looks like %q but is not; use the plain ASCII character", q, r, r, s)
		}
		if unicode.IsControl(r) || invisible(r) {
			return "", pathErrorf(ErrInvalidPath, p, "path %s contains the invisible character U+%04X; remove it", q, r)
		}
	}
	if path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return "", pathErrorf(ErrOutsideWorkspace, p, "path %s is absolute; use a path relative to the workspace folder", q)
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", pathErrorf(ErrOutsideWorkspace, p, "path %s is outside the workspace; use a path relative to the workspace folder", q)
	}
	for _, part := range strings.Split(c, "/") {
		if len(part) > maxComponentBytes {
			return "", pathErrorf(ErrInvalidPath, p, "path %s has a name of %d bytes, over the limit of %d; use a shorter name", q, len(part), maxComponentBytes)
		}
	}
	return c, nil
}

// writablePath cleans p and refuses it when it may not be written.
func (w *Workspace) writablePath(p string) (string, error) {
	rel, err := clean(p)
	if err != nil {
		return "", err
	}
	return rel, w.checkWritable(rel)
}

// checkWritable refuses writes into .git and the protected folders, by name
// and by identity, so a symbolic link inside the workspace that leads to them
// is refused too.
func (w *Workspace) checkWritable(rel string) error {
	return w.checkWritableIn(rel, w.appFiles())
}

// checkWritableIn is checkWritable with the app's files looked up already: a walk of many
// paths looks them up once.
func (w *Workspace) checkWritableIn(rel string, app *appFiles) error {
	if rel == "." {
		return pathErrorf(ErrInvalidPath, rel, "path \".\" is the workspace folder itself; give the path of a file or folder inside it")
	}
	for _, part := range strings.Split(rel, "/") {
		if strings.EqualFold(part, ".git") {
			return pathErrorf(ErrProtectedPath, rel, "path %q is inside .git, which the agent never modifies; write somewhere else in the workspace", rel)
		}
	}
	if err := app.refuse(w, rel, w.statOrNil(rel)); err != nil {
		return err
	}
	var guarded []os.FileInfo
	var names []string
	if fi, err := w.root.Stat(".git"); err == nil {
		guarded, names = append(guarded, fi), append(names, ".git")
	}
	for _, p := range w.protected {
		if fi, err := os.Stat(p); err == nil {
			guarded, names = append(guarded, fi), append(names, "the app's data folder ("+p+")")
		}
	}
	if len(guarded) == 0 {
		return nil
	}
	prefix := ""
	for _, part := range strings.Split(rel, "/") {
		prefix = path.Join(prefix, part)
		fi, err := w.root.Stat(prefix)
		if err != nil {
			return nil // what does not exist yet is not protected; later steps report other errors
		}
		for i, g := range guarded {
			if os.SameFile(fi, g) {
				via := ""
				if prefix != names[i] {
					via = fmt.Sprintf(" (through %q)", prefix)
				}
				return pathErrorf(ErrProtectedPath, rel, "path %q is inside %s%s, which the agent never modifies; write somewhere else in the workspace", rel, names[i], via)
			}
		}
	}
	return nil
}

// explain turns an error of os.Root into a sentence for the model, naming
// the symbolic link that leads outside when there is one.
func (w *Workspace) explain(rel string, err error) error {
	var pe *PathError
	if errors.As(err, &pe) {
		return err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return pathErrorf(ErrNotFound, rel, "%q does not exist; use list_dir to see what is there", rel)
	case strings.Contains(err.Error(), "path escapes from parent"):
		if link, target := w.escapingLink(rel); link != "" {
			return pathErrorf(ErrOutsideWorkspace, rel, "path %q leads outside the workspace: %q is a symbolic link to %q; only links that stay inside the workspace can be followed, so use the real path inside the workspace", rel, link, target)
		}
		return pathErrorf(ErrOutsideWorkspace, rel, "path %q leads outside the workspace; use a path relative to the workspace folder", rel)
	case errors.Is(err, syscall.ELOOP):
		return pathErrorf(ErrOutsideWorkspace, rel, "path %q goes through too many symbolic links (or a loop of them); use the real path", rel)
	case errors.Is(err, syscall.ENOTDIR):
		return pathErrorf(ErrWrongKind, rel, "path %q goes through a file as if it were a folder; check the path with list_dir", rel)
	case errors.Is(err, syscall.EISDIR):
		return pathErrorf(ErrWrongKind, rel, "%q is a folder, not a file; give the path of a file", rel)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return pathErrorf(ErrInvalidPath, rel, "path %q is too long for the file system; use a shorter path", rel)
	case errors.Is(err, fs.ErrPermission):
		return pathErrorf(fs.ErrPermission, rel, "permission denied for %q; the user's account cannot change it, so choose another path", rel)
	case errors.Is(err, syscall.ENOSPC):
		return pathErrorf(err, rel, "the disk is full while writing %q; nothing was changed", rel)
	}
	return pathErrorf(err, rel, "%q: %v", rel, unwrapPathError(err))
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// escapingLink finds the first symbolic link on rel that leads outside.
func (w *Workspace) escapingLink(rel string) (link, target string) {
	prefix := ""
	for _, part := range strings.Split(rel, "/") {
		prefix = path.Join(prefix, part)
		fi, err := w.root.Lstat(prefix)
		if err != nil {
			return "", ""
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if _, err := w.root.Stat(prefix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t, _ := w.root.Readlink(prefix)
				return prefix, t
			}
			// dangling or inside: keep walking the rest of the path
		}
	}
	return "", ""
}

// statOrNil describes what rel resolves to, following links inside the
// workspace; nil when there is nothing (or nothing reachable).
func (w *Workspace) statOrNil(rel string) os.FileInfo {
	fi, err := w.root.Stat(rel)
	if err != nil {
		return nil
	}
	return fi
}

// lstat describes what is at rel without following a final symbolic
// link; a missing file gives (nil, nil).
func (w *Workspace) lstat(rel string) (os.FileInfo, error) {
	fi, err := w.root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, w.explain(rel, err)
	}
	return fi, nil
}

func hardLinkError(rel string, n uint64) error {
	return pathErrorf(ErrHardLink, rel, "%q is a hard link (the file has %d names, and another may be outside the workspace), so it is neither read nor written; write a new file instead", rel, n)
}

// regularFile checks that rel (already opened or stat'ed as fi) is a plain,
// singly linked file.
func regularFile(rel string, fi os.FileInfo) error {
	if err := plainFile(rel, fi); err != nil {
		return err
	}
	if links(fi) > 1 {
		return hardLinkError(rel, links(fi))
	}
	return nil
}

// plainFile checks that rel (stat'ed or opened as fi) is a file, not a
// folder and not a FIFO, socket or device, which could block or never end.
func plainFile(rel string, fi os.FileInfo) error {
	switch {
	case fi.IsDir():
		return pathErrorf(ErrWrongKind, rel, "%q is a folder, not a file; use list_dir to see its entries", rel)
	case !fi.Mode().IsRegular():
		return pathErrorf(ErrWrongKind, rel, "%q is %s, not a regular file; only regular files are read or changed, so it was left alone", rel, specialKind(fi.Mode()))
	}
	return nil
}

// specialKind names a kind of file that is not a regular file or a folder.
func specialKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}
