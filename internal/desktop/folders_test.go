package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckFolderOffersToCreateOnlyInsideAFolderThatExists(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir               string
		exists, canCreate bool
	}{
		{root, true, false},
		{filepath.Join(root, "site"), false, true},
		{filepath.Join(root, "no", "site"), false, false},
		{file, false, false},
		{filepath.Join(file, "site"), false, false},
	} {
		got := CheckFolder(tc.dir)
		if got.Path != tc.dir || got.Exists != tc.exists || got.CanCreate != tc.canCreate {
			t.Errorf("CheckFolder(%s) = %+v; want exists %v, can create %v", tc.dir, got, tc.exists, tc.canCreate)
		}
	}
}

func TestCreateFolderMakesOneFolderInsideOneThatExists(t *testing.T) {
	root := t.TempDir()
	site := filepath.Join(root, "site")
	got, err := CreateFolder(site + " ")
	if err != nil || got != site {
		t.Fatalf("CreateFolder = %q, %v; want %s", got, err, site)
	}
	if info, err := os.Stat(site); err != nil || !info.IsDir() {
		t.Fatalf("%s is not a folder after CreateFolder: %v", site, err)
	}
	if again, err := CreateFolder(site); err != nil || again != site {
		t.Errorf("CreateFolder of a folder that exists = %q, %v; want it as it is", again, err)
	}
	deep := filepath.Join(root, "no", "site")
	if _, err := CreateFolder(deep); err == nil || !strings.Contains(err.Error(), "is not a folder that exists") {
		t.Errorf("CreateFolder(%s) = %v; want a refusal naming the missing parent", deep, err)
	}
	if _, err := os.Stat(filepath.Join(root, "no")); err == nil {
		t.Error("CreateFolder made the missing parent too")
	}
}
