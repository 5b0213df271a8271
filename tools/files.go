package tools

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// maxListedEntries bounds the walk of FindFiles: a huge folder answers with what it found.
const maxListedEntries = 20000

// errEnough ends a walk early.
var errEnough = errors.New("enough")

// FindFiles returns up to limit files of the folder dir whose slash-separated relative path
// contains query (case-insensitively), shortest paths first: what the composer offers after
// an @. Hidden folders and node_modules are not searched; links are not followed.
func FindFiles(dir, query string, limit int) ([]string, error) {
	q := strings.ToLower(query)
	var found []string
	seen := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			return nil // an unreadable folder is left out
		}
		if seen++; seen > maxListedEntries {
			return errEnough
		}
		name := d.Name()
		if d.IsDir() {
			if path != dir && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if strings.Contains(strings.ToLower(rel), q) {
			found = append(found, rel)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, err
	}
	sort.Slice(found, func(i, j int) bool {
		if len(found[i]) != len(found[j]) {
			return len(found[i]) < len(found[j])
		}
		return found[i] < found[j]
	})
	if len(found) > limit {
		found = found[:limit]
	}
	return found, nil
}
