package tools

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The app's own files are the databases named in
// [WorkspaceOptions.ProtectedFiles] and the files kept beside each: its lock
// and its backups, whose names are the database's name followed by a dot or
// a dash (prototyper.db.lock, prototyper.db.schema1.bak). No tool reads,
// writes, edits or deletes them, wherever the database lives: the data
// folder may be the workspace itself, so protecting the folder is not enough.
//
// They are recognised by identity (device and inode, [os.SameFile]), so a
// symbolic or hard link to one is refused as well as its own name, and by
// name inside the database's folder, so a lock or backup that does not exist
// yet cannot be created by a tool either.

const (
	roleDatabase   = "Prototyper's own database (it holds your chats)"
	roleCompanion  = "a lock or backup file of Prototyper's own database"
	roleConfigFile = "Prototyper's own configuration (it names the programs the app starts; the user changes it with a text editor, outside the chat)"
)

// companionOf reports whether name is a file kept beside the database named
// db. Letter case is ignored: on a case-insensitive disk PROTOTYPER.DB.LOCK is
// the same file, and elsewhere refusing that name costs nothing.
func companionOf(db, name string) bool {
	if len(name) <= len(db) || !strings.EqualFold(name[:len(db)], db) {
		return false
	}
	c := name[len(db)]
	return c == '.' || c == '-'
}

type appFile struct {
	fi   os.FileInfo
	name string // its name in its folder, for the refusal
	role string
}

type dbFolder struct {
	fi os.FileInfo
	db string // the database's file name in it
}

// appFiles is where the app's files are at one moment. It is looked up for
// each call rather than once, because the database can be created, replaced
// or backed up while a workspace stays open.
type appFiles struct {
	files   []appFile
	folders []dbFolder
	holders []holder // every folder above a database or a configuration folder, up to the file system's root
	configs []configFolder
}

// holder is a folder that holds one of the app's files, and what it holds.
type holder struct {
	fi   os.FileInfo
	what string // for the refusal: "Prototyper's own database", …
}

// appFiles looks up the app's files now.
func (w *Workspace) appFiles() *appFiles {
	a := &appFiles{}
	for _, db := range w.databases {
		paths := []string{db}
		if real, err := filepath.EvalSymlinks(db); err == nil && real != db {
			paths = append(paths, real) // a linked database's lock and backups may sit beside either name
		}
		for _, p := range paths {
			w.addAppFiles(a, p)
		}
	}
	for _, dir := range w.configs {
		w.addConfig(a, dir)
	}
	for _, p := range w.cfgFiles {
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.Mode().IsRegular():
			a.files = append(a.files, appFile{fi, filepath.Base(p), roleConfigFile})
			a.addHolders(filepath.Dir(p), "a file of Prototyper's own configuration")
		case errors.Is(err, fs.ErrNotExist):
			// not made yet (the app reads none then): no tool makes it, by its name or where a
			// link of its name leads, or the agent would choose what the app starts next
			n := len(a.configs)
			w.addConfig(a, p)
			for i := n; i < len(a.configs); i++ {
				a.configs[i].file = true
			}
		}
	}
	return a
}

func (w *Workspace) addAppFiles(a *appFiles, db string) {
	dir, base := filepath.Dir(db), filepath.Base(db)
	dfi, err := os.Stat(dir)
	if err != nil {
		return // no folder, so no database to protect yet
	}
	a.folders = append(a.folders, dbFolder{dfi, base})
	for _, name := range w.appFileNames(dir, dfi, base) {
		role := roleCompanion
		if strings.EqualFold(name, base) {
			role = roleDatabase
		}
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil {
			a.files = append(a.files, appFile{fi, name, role})
		}
	}
	a.addHolders(dir, "Prototyper's own database")
}

// addHolders records dir and every folder above it as holding what.
func (a *appFiles) addHolders(dir, what string) {
	for d := dir; ; {
		if fi, err := os.Stat(d); err == nil {
			a.holders = append(a.holders, holder{fi, what})
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
}

// file returns the app's file that fi is, if any.
func (a *appFiles) file(fi os.FileInfo) (appFile, bool) {
	if fi == nil {
		return appFile{}, false
	}
	for _, f := range a.files {
		if os.SameFile(fi, f.fi) {
			return f, true
		}
	}
	return appFile{}, false
}

// refuse returns the refusal when rel is one of the app's files: by identity
// (fi is what rel resolves to, following links; nil when nothing is there)
// or by its name in a database's folder, reached by any path; or when rel is
// in a configuration folder (see refuseConfig).
func (a *appFiles) refuse(w *Workspace, rel string, fi os.FileInfo) error {
	if err := a.refuseConfig(w, rel, fi); err != nil {
		return err
	}
	if f, ok := a.file(fi); ok {
		return appFileError(rel, f.name, f.role)
	}
	if len(a.folders) == 0 || rel == "." {
		return nil
	}
	dir, base := path.Split(rel)
	if dir == "" {
		dir = "."
	}
	dfi, err := w.root.Stat(dir)
	if err != nil {
		return nil
	}
	for _, d := range a.folders {
		if !os.SameFile(dfi, d.fi) {
			continue
		}
		switch {
		case strings.EqualFold(base, d.db):
			return appFileError(rel, base, roleDatabase)
		case companionOf(d.db, base):
			return appFileError(rel, base, roleCompanion)
		}
	}
	return nil
}

// refuseFolder returns the refusal when the folder fi (at rel) holds one of
// the app's files, at any depth.
func (a *appFiles) refuseFolder(rel string, fi os.FileInfo) error {
	for _, h := range a.holders {
		if os.SameFile(fi, h.fi) {
			return pathErrorf(ErrProtectedPath, rel, "folder %q holds %s, so the agent may not delete it", rel, h.what)
		}
	}
	return nil
}

func appFileError(rel, name, role string) error {
	if strings.EqualFold(path.Base(rel), name) {
		return pathErrorf(ErrProtectedPath, rel, "%q is %s; the agent may not read or change it", rel, role)
	}
	return pathErrorf(ErrProtectedPath, rel, "%q leads to %q, which is %s; the agent may not read or change it", rel, name, role)
}

// appFileNames lists the database base and its companions in dir, whose
// current state is dfi. The list is kept until the folder changes (an entry
// added, removed or renamed changes its modification time), so a database
// among thousands of files costs one listing, not one per call.
func (w *Workspace) appFileNames(dir string, dfi os.FileInfo, base string) []string {
	key := filepath.Join(dir, base)
	w.appNamesMu.Lock()
	defer w.appNamesMu.Unlock()
	if c, ok := w.appNames[key]; ok && os.SameFile(c.folder, dfi) && c.folder.ModTime().Equal(dfi.ModTime()) && c.folder.Size() == dfi.Size() {
		return c.names
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []string{base}
	}
	var names []string
	for _, e := range entries {
		if strings.EqualFold(e.Name(), base) || companionOf(base, e.Name()) {
			names = append(names, e.Name())
		}
	}
	if w.appNames == nil {
		w.appNames = map[string]appFileListing{}
	}
	w.appNames[key] = appFileListing{folder: dfi, names: names}
	return names
}

type appFileListing struct {
	folder os.FileInfo // the folder when it was listed
	names  []string
}
