package desktop

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FolderCheck is what the folder picker knows of a path typed in it before it offers it:
// whether it is a folder that exists, and when it does not, whether it can be created there
// (its parent is a folder that exists).
type FolderCheck struct {
	// Path is the typed path made absolute (~/ is the home folder).
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	// CanCreate: the path does not exist and its parent is a folder that exists.
	CanCreate bool `json:"canCreate"`
}

// absFolder is dir, trimmed, with a leading ~/ for the home folder, as an absolute path.
func absFolder(dir string) (string, error) {
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return "", errors.New("no folder given: pick a workspace folder")
	}
	if strings.HasPrefix(dir, "~"+string(filepath.Separator)) {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, dir[2:])
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s is not a folder path Prototyper can read: pick another folder", dir)
	}
	return abs, nil
}

// CheckFolder says what dir is for the folder picker (see [FolderCheck]); a path that cannot
// be made absolute is neither there nor creatable.
func CheckFolder(dir string) FolderCheck {
	abs, err := absFolder(dir)
	if err != nil {
		return FolderCheck{}
	}
	c := FolderCheck{Path: abs}
	if info, err := os.Stat(abs); err == nil {
		c.Exists = info.IsDir()
		return c
	} else if !errors.Is(err, os.ErrNotExist) {
		return c
	}
	parent, err := os.Stat(filepath.Dir(abs))
	c.CanCreate = err == nil && parent.IsDir()
	return c
}

// CreateFolder creates the folder dir inside a folder that exists (one level: a mistyped
// parent is not made along with it) and returns its absolute path.
func CreateFolder(dir string) (string, error) {
	abs, err := absFolder(dir)
	if err != nil {
		return "", err
	}
	parent := filepath.Dir(abs)
	if info, err := os.Stat(parent); err != nil || !info.IsDir() {
		return "", fmt.Errorf("%s cannot be created because %s is not a folder that exists: pick a path inside one", abs, parent)
	}
	if err := os.Mkdir(abs, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			if _, err := checkFolder(abs); err != nil {
				return "", err
			}
			return abs, nil
		}
		return "", fmt.Errorf("%s could not be created (%v): pick another folder", abs, errors.Unwrap(err))
	}
	return abs, nil
}

// RecentFolder is a folder of the folder menu's recent ones, and whether it is gone (moved or
// deleted since), so that the menu says so rather than offering a folder it would refuse.
type RecentFolder struct {
	Path    string `json:"path"`
	Missing bool   `json:"missing,omitempty"`
}

// recentFolders are the stored recent folders as the folder menu lists them.
func recentFolders(paths []string) []RecentFolder {
	out := make([]RecentFolder, 0, len(paths))
	for _, p := range paths {
		info, err := os.Stat(p)
		out = append(out, RecentFolder{Path: p, Missing: err != nil || !info.IsDir()})
	}
	return out
}
