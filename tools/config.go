package tools

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// WorkspaceConfigDir is the folder of a workspace that holds Prototyper's
// configuration for that workspace (its MCP servers, which the app starts).
// The app passes it in [WorkspaceOptions.ConfigDirs]: an agent that could
// write there could make the app run a program of its choosing.
const WorkspaceConfigDir = ".prototyper"

// The configuration folders ([WorkspaceOptions.ConfigDirs]) are refused as a
// whole: whatever is in them, and the folder itself, also before it exists
// (so that no tool creates it). Like the database they are looked up for
// each call, so a folder made, replaced or renamed into place while a
// workspace stays open is refused at once.

// roleConfig names what a configuration folder is, in a refusal.
const roleConfig = "Prototyper's own configuration"

// maxConfigEntries bounds what is recorded of a configuration folder's
// content (for a link to a file in it): these folders hold a few files.
const maxConfigEntries = 512

// configFolder is where one configuration folder is at one moment.
type configFolder struct {
	abs    string        // its absolute path
	rel    string        // its path in the workspace, "" when it is outside
	fi     os.FileInfo   // the folder, following a link; nil when there is none
	anchor os.FileInfo   // the nearest folder above it that exists; nil when there is none
	under  []string      // the names from anchor down to the folder: its own name at least
	inside []os.FileInfo // what it holds, for a link to one of them
	file   bool          // a configuration file not made yet, rather than a folder
}

// maxConfigLinks bounds the links followed from a configuration folder that is a link to
// a folder not made yet.
const maxConfigLinks = 8

// addConfig records the configuration folder dir; when dir is a link to a folder not made
// yet (a repository can hold such a link), where the link leads is recorded as well: a tool
// that made that folder would make the configuration folder.
func (w *Workspace) addConfig(a *appFiles, dir string) {
	w.addConfigFolder(a, dir)
	for i := 0; i < maxConfigLinks; i++ {
		target, ok := danglingLink(dir)
		if !ok {
			return
		}
		w.addConfigFolder(a, target)
		dir = target
	}
}

// danglingLink is where the link dir leads, when dir is a link to nothing (yet).
func danglingLink(dir string) (string, bool) {
	if fi, err := os.Lstat(dir); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return "", false
	}
	if _, err := os.Stat(dir); err == nil {
		return "", false // it leads to a folder: recognised by identity
	}
	target, err := os.Readlink(dir)
	if err != nil {
		return "", false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(dir), target)
	}
	return target, true
}

func (w *Workspace) addConfigFolder(a *appFiles, dir string) {
	c := configFolder{abs: dir}
	if r, err := filepath.Rel(w.dir, dir); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		c.rel = filepath.ToSlash(r)
	}
	// a folder whose parent does not exist yet (.config/prototyper in a home folder without
	// .config) is known by its names below the nearest folder that does
	for d := dir; ; {
		c.under = append([]string{filepath.Base(d)}, c.under...)
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		if fi, err := os.Stat(parent); err == nil {
			c.anchor = fi
			break
		}
		d = parent
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		c.fi = fi
		c.inside = configContent(dir)
	}
	a.configs = append(a.configs, c)
	a.addHolders(filepath.Dir(dir), roleConfig)
}

// configContent lists the files and folders under dir (not following links),
// up to maxConfigEntries.
func configContent(dir string) []os.FileInfo {
	var out []os.FileInfo
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		if len(out) == maxConfigEntries {
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			out = append(out, fi)
		}
		return nil
	})
	return out
}

// is reports whether fi is the configuration folder or something in it.
func (c *configFolder) is(fi os.FileInfo) bool {
	if fi == nil || c.fi == nil {
		return false
	}
	if os.SameFile(fi, c.fi) {
		return true
	}
	for _, in := range c.inside {
		if os.SameFile(fi, in) {
			return true
		}
	}
	return false
}

// configFolderAt returns the configuration folder that the folder fi is,
// found by identity alone: what a listing or a search meets while walking.
func (a *appFiles) configFolderAt(fi os.FileInfo) (*configFolder, bool) {
	for i := range a.configs {
		if c := &a.configs[i]; c.fi != nil && fi != nil && os.SameFile(fi, c.fi) {
			return c, true
		}
	}
	return nil, false
}

// refuseConfig returns the refusal when rel is a configuration folder or in
// one: by its name in the folder that holds it (also a folder reached through
// a link, and a name of another letter case), or by identity, of rel itself
// (fi, what it resolves to; nil when nothing is there) or of any folder on its
// way.
func (a *appFiles) refuseConfig(w *Workspace, rel string, fi os.FileInfo) error {
	if len(a.configs) == 0 || rel == "." {
		return nil
	}
	for i := range a.configs {
		if a.configs[i].is(fi) {
			return configError(rel, &a.configs[i])
		}
	}
	dir := "."
	dfi, err := w.root.Stat(dir)
	parts := strings.Split(rel, "/")
	for k, part := range parts {
		if err != nil {
			return nil // what is not there holds no configuration folder
		}
		for i := range a.configs {
			if c := &a.configs[i]; c.anchor != nil && os.SameFile(dfi, c.anchor) && namesFold(parts[k:], c.under) {
				return configError(rel, c)
			}
		}
		dir = path.Join(dir, part)
		dfi, err = w.root.Stat(dir)
		if err == nil {
			for i := range a.configs {
				if a.configs[i].is(dfi) {
					return configError(rel, &a.configs[i])
				}
			}
		}
	}
	return nil
}

// namesFold reports whether names begins with want, letter case ignored.
func namesFold(names, want []string) bool {
	if len(names) < len(want) {
		return false
	}
	for i, w := range want {
		if !strings.EqualFold(names[i], w) {
			return false
		}
	}
	return true
}

// configError is the refusal of rel, which is the configuration folder c or
// in it: by its own name, or through a link.
func configError(rel string, c *configFolder) error {
	shown := c.abs
	if c.rel != "" {
		shown = c.rel
	}
	const how = "which the agent may not read or change: the user changes it with a text editor, outside the chat"
	kind := "folder"
	if c.file {
		kind = "file"
	}
	if c.rel != "" && (strings.EqualFold(rel, c.rel) || strings.HasPrefix(strings.ToLower(rel), strings.ToLower(c.rel)+"/")) {
		return pathErrorf(ErrProtectedPath, rel, "%q is %s (the %s %s), %s", rel, roleConfig, kind, shown, how)
	}
	return pathErrorf(ErrProtectedPath, rel, "%q leads to %s (the %s %s), %s", rel, roleConfig, kind, shown, how)
}
