package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindFilesOffersTheWorkspacesFilesShortestFirst(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"README.md", "src/app.go", "src/deep/readme.txt", ".git/config", "node_modules/x/readme.md"} {
		_ = os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		_ = os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644)
	}
	got, err := FindFiles(dir, "READ", 10)
	if err != nil || strings.Join(got, " ") != "README.md src/deep/readme.txt" {
		t.Fatalf("FindFiles = %q, %v", got, err)
	}
	if got, _ := FindFiles(dir, "", 2); len(got) != 2 {
		t.Fatalf("limit: %q", got)
	}
}
