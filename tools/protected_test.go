package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// databaseWorkspace is a workspace whose folder also holds the app's
// database, as `--db ./prototyper.db` makes it, opened with the options the
// app passes: the data folder (here the workspace itself) and the database.
func databaseWorkspace(t testing.TB, dbRel string) (tw *testWorkspace, db string) {
	t.Helper()
	tw = newTestWorkspace(t)
	tw.w.Close()
	db = filepath.Join(tw.ws, filepath.FromSlash(dbRel))
	tw.write(t, dbRel, "bolt database: every chat\n")
	tw.write(t, dbRel+".schema1.bak", "bolt backup: every chat\n")
	tw.reopen(t, WorkspaceOptions{ProtectedDirs: []string{filepath.Dir(db)}, ProtectedFiles: []string{db}})
	return tw, db
}

// argsFor gives each tool the arguments that would make it act on p.
func argsFor(tool, p string) map[string]any {
	switch tool {
	case "write_file":
		return map[string]any{"path": p, "content": "replaced by the agent"}
	case "edit_file":
		return map[string]any{"path": p, "old_string": "every chat", "new_string": "nothing"}
	}
	return map[string]any{"path": p}
}

// wantAppFileRefusal checks that err is the one-sentence refusal a user
// understands.
func wantAppFileRefusal(t testing.TB, err error, says string) {
	t.Helper()
	wantProtectedRefusal(t, err, says, "Prototyper's own database")
}

// wantProtectedRefusal checks that err is a refusal of the app's own files, one
// sentence that says each of says and names nothing a user cannot act on.
func wantProtectedRefusal(t testing.TB, err error, says ...string) {
	t.Helper()
	if !errors.Is(err, ErrProtectedPath) {
		t.Fatalf("got %v, want the refusal for Prototyper's own files", err)
	}
	msg := err.Error()
	for _, want := range says {
		if !strings.Contains(msg, want) {
			t.Fatalf("the refusal %q does not say %q", msg, want)
		}
	}
	if len(msg) > 300 || strings.Contains(msg, ". ") || strings.Contains(msg, "\n") {
		t.Fatalf("the refusal %q is not one sentence", msg)
	}
	for _, api := range []string{"ProtectedFiles", "ConfigDirs", "SameFile", "Stat", "os.", "inode"} {
		if strings.Contains(msg, api) {
			t.Fatalf("the refusal %q names %q, which a user cannot act on", msg, api)
		}
	}
}

func TestTheDatabaseInTheWorkspaceIsNeverATarget(t *testing.T) {
	const may = "the agent may not read or change it"
	links := func(t *testing.T, tw *testWorkspace) {
		for name, target := range map[string]string{"alias": "prototyper.db", "backup-alias": "prototyper.db.schema1.bak", "self": "."} {
			if err := os.Symlink(target, filepath.Join(tw.ws, name)); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Link(filepath.Join(tw.ws, "prototyper.db"), filepath.Join(tw.ws, "copy.db")); err != nil {
			t.Skipf("hard links are not possible here: %v", err)
		}
	}
	cases := []struct {
		name, tool, path, says string
	}{
		{"write over the database", "write_file", "prototyper.db", `"prototyper.db" is Prototyper's own database (it holds your chats); ` + may},
		{"write over the database in another case", "write_file", "PROTOTYPER.DB", "is Prototyper's own database"},
		{"edit the database", "edit_file", "prototyper.db", `"prototyper.db" is Prototyper's own database`},
		{"read the database", "read_file", "prototyper.db", may},
		{"delete the database", "delete_path", "prototyper.db", may},
		{"create its lock", "write_file", "prototyper.db.lock", `"prototyper.db.lock" is a lock or backup file of Prototyper's own database`},
		{"make a folder where its lock goes", "make_dir", "prototyper.db.lock", "lock or backup file"},
		{"overwrite its backup", "write_file", "prototyper.db.schema1.bak", "lock or backup file"},
		{"read its backup", "read_file", "prototyper.db.schema1.bak", "lock or backup file"},
		{"delete its backup", "delete_path", "prototyper.db.schema1.bak", "lock or backup file"},
		{"read through a symbolic link", "read_file", "alias", `"alias" leads to "prototyper.db", which is Prototyper's own database`},
		{"write through a symbolic link", "write_file", "alias", `"alias" leads to "prototyper.db"`},
		{"delete a symbolic link to it", "delete_path", "alias", `"alias" leads to "prototyper.db"`},
		{"read the backup through a symbolic link", "read_file", "backup-alias", `leads to "prototyper.db.schema1.bak"`},
		{"read through a hard link", "read_file", "copy.db", `"copy.db" leads to "prototyper.db"`},
		{"edit through a hard link", "edit_file", "copy.db", `"copy.db" leads to "prototyper.db"`},
		{"delete a hard link to it", "delete_path", "copy.db", `"copy.db" leads to "prototyper.db"`},
		{"write through a link to its folder", "write_file", "self/prototyper.db", "Prototyper's own database"},
		{"create its lock through a link to its folder", "write_file", "self/prototyper.db.lock", "lock or backup file"},
		{"delete through a link to its folder", "delete_path", "self/prototyper.db", "Prototyper's own database"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tw, db := databaseWorkspace(t, "prototyper.db")
			links(t, tw)
			before, backup := snapshot(t, db), snapshot(t, db+".schema1.bak")
			err := tw.refusal(t, c.tool, argsFor(c.tool, c.path), c.path)
			wantAppFileRefusal(t, err, c.says)
			if got := tw.run(t, c.tool, argsFor(c.tool, c.path)); !got.IsError || got.Content != err.Error() {
				t.Fatalf("through the registry: %+v", got)
			}
			before.check(t)
			backup.check(t)
			for _, name := range []string{"prototyper.db.lock", "PROTOTYPER.DB"} {
				if _, err := os.Lstat(filepath.Join(tw.ws, name)); err == nil {
					t.Fatalf("%s was created", name)
				}
			}
		})
	}
}

func TestSearchNeverReadsTheDatabaseOrItsBackups(t *testing.T) {
	tw, _ := databaseWorkspace(t, "data/prototyper.db")
	tw.write(t, "notes.txt", "every chat I had\n")
	if err := os.Symlink("data", filepath.Join(tw.ws, "d")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".", "data", "data/prototyper.db", "d/prototyper.db"} {
		res := tw.run(t, "search_files", map[string]any{"pattern": "every chat", "path": p})
		if res.IsError || strings.Contains(res.Content, "prototyper.db") {
			t.Fatalf("search of %q: %+v", p, res)
		}
	}
	if res := tw.run(t, "search_files", map[string]any{"pattern": "every chat"}); res.Content != "notes.txt:1: every chat I had" {
		t.Fatalf("the search must still find the user's files: %q", res.Content)
	}
}

func TestAFolderHoldingTheDatabaseCannotBeDeleted(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.w.Close()
	tw.write(t, "app/data/prototyper.db", "bolt")
	db := filepath.Join(tw.ws, "app", "data", "prototyper.db")
	tw.reopen(t, WorkspaceOptions{ProtectedFiles: []string{db}})
	os.Symlink("app", filepath.Join(tw.ws, "app-link"))
	for _, p := range []string{"app", "app/data", "app/./data"} {
		_, err := tw.exec(t, t.Context(), "delete_path", map[string]any{"path": p}, nil)
		wantAppFileRefusal(t, err, "holds Prototyper's own database, so the agent may not delete it")
	}
	// The folder is not protected as a whole: only the app's files in it.
	if res := tw.run(t, "write_file", map[string]any{"path": "app/data/notes.txt", "content": "mine"}); res.IsError {
		t.Fatalf("a file beside the database is the user's: %s", res.Content)
	}
	if res := tw.run(t, "delete_path", map[string]any{"path": "app-link"}); res.IsError {
		t.Fatalf("a link to the folder is only a link: %s", res.Content)
	}
	if b, err := os.ReadFile(db); err != nil || string(b) != "bolt" {
		t.Fatalf("the database changed: %q %v", b, err)
	}
}

func TestADatabaseOutsideIsRefusedThroughAHardLink(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.w.Close()
	db := filepath.Join(tw.out, "prototyper.db")
	if err := os.WriteFile(db, []byte("bolt"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(db, filepath.Join(tw.ws, "linked")); err != nil {
		t.Skipf("hard links are not possible here: %v", err)
	}
	tw.reopen(t, WorkspaceOptions{ProtectedDirs: []string{tw.out}, ProtectedFiles: []string{db}})
	before := snapshot(t, db)
	for _, tool := range []string{"read_file", "write_file", "edit_file", "delete_path"} {
		_, err := tw.exec(t, t.Context(), tool, argsFor(tool, "linked"), nil)
		wantAppFileRefusal(t, err, `"linked" leads to "prototyper.db"`)
	}
	before.check(t)
	if _, err := os.Lstat(filepath.Join(tw.ws, "linked")); err != nil {
		t.Fatalf("the link was removed: %v", err)
	}
}

func TestADatabasePathThatIsASymbolicLinkIsProtectedByBothNames(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.w.Close()
	tw.write(t, "real/chats.db", "bolt")
	if err := os.Symlink("real/chats.db", filepath.Join(tw.ws, "prototyper.db")); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(tw.ws, "prototyper.db") // what --db was given
	tw.reopen(t, WorkspaceOptions{ProtectedFiles: []string{db}})
	for _, c := range []struct{ tool, path string }{
		{"read_file", "real/chats.db"}, {"write_file", "real/chats.db"}, {"write_file", "real/chats.db.lock"},
		{"write_file", "prototyper.db.schema1.bak"}, {"read_file", "prototyper.db"}, {"delete_path", "prototyper.db"},
	} {
		_, err := tw.exec(t, t.Context(), c.tool, argsFor(c.tool, c.path), nil)
		wantAppFileRefusal(t, err, "Prototyper's own database")
	}
	if tw.read(t, "real/chats.db") != "bolt" {
		t.Fatal("the database changed")
	}
}

// The app passes the database's folder as protected; when that folder is the
// workspace (or holds it), the workspace must stay writable.
func TestADataFolderThatIsTheWorkspaceLeavesTheWorkspaceWritable(t *testing.T) {
	for _, folder := range []string{"the workspace", "the workspace's parent"} {
		t.Run(folder, func(t *testing.T) {
			tw := newTestWorkspace(t)
			tw.w.Close()
			dir := tw.ws
			if folder != "the workspace" {
				dir = filepath.Dir(tw.ws)
			}
			tw.reopen(t, WorkspaceOptions{ProtectedDirs: []string{dir}, ProtectedFiles: []string{filepath.Join(tw.ws, "prototyper.db")}})
			os.Symlink(".", filepath.Join(tw.ws, "self"))
			for _, c := range []struct{ tool, path string }{
				{"write_file", "notes.txt"}, {"write_file", "self/more.txt"}, {"make_dir", "src"},
				{"edit_file", "notes.txt"}, {"delete_path", "self/more.txt"},
			} {
				args := argsFor(c.tool, c.path)
				if c.tool == "edit_file" {
					args["old_string"], args["new_string"] = "replaced", "changed"
				}
				if res := tw.run(t, c.tool, args); res.IsError {
					t.Fatalf("%s %s: %s", c.tool, c.path, res.Content)
				}
			}
			if tw.read(t, "notes.txt") != "changed by the agent" {
				t.Fatalf("notes.txt: %q", tw.read(t, "notes.txt"))
			}
		})
	}
}

// The app's files are looked up as they are at each call: a backup made
// while the workspace is open is protected at once, also through a link.
func TestABackupMadeWhileTheWorkspaceIsOpenIsProtected(t *testing.T) {
	tw, db := databaseWorkspace(t, "prototyper.db")
	if res := tw.run(t, "read_file", map[string]any{"path": "prototyper.db.schema1.bak"}); !res.IsError {
		t.Fatalf("the backup was read: %s", res.Content)
	}
	if err := os.WriteFile(db+".schema2.bak", []byte("bolt backup: every chat\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("prototyper.db.schema2.bak", filepath.Join(tw.ws, "later")); err != nil {
		t.Fatal(err)
	}
	_, err := tw.exec(t, t.Context(), "read_file", map[string]any{"path": "later"}, nil)
	wantAppFileRefusal(t, err, `"later" leads to "prototyper.db.schema2.bak", which is a lock or backup file of Prototyper's own database`)
}
