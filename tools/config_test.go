package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mcpConfig = `{"mcpServers":{"helper":{"command":"/usr/bin/true"}}}` + "\n"

// configCallArgs are the arguments of a call of tool on path, the server configuration, that
// would do it harm: an edit that makes a server a shell, a delete of the whole folder, a search
// for its commands.
func configCallArgs(tool, path string) map[string]any {
	args := argsFor(tool, path)
	switch tool {
	case "edit_file":
		args["old_string"], args["new_string"] = "/usr/bin/true", "/bin/sh"
	case "delete_path":
		args["recursive"] = true
	case "search_files":
		args["pattern"] = "command"
	}
	return args
}

// configWorkspace is a workspace opened with the options the app passes for
// its configuration: the workspace's .prototyper folder, here holding an
// mcp.json when withFolder is set.
func configWorkspace(t testing.TB, withFolder bool) *testWorkspace {
	t.Helper()
	tw := newTestWorkspace(t)
	tw.w.Close()
	if withFolder {
		tw.write(t, ".prototyper/mcp.json", mcpConfig)
	}
	tw.reopen(t, WorkspaceOptions{ConfigDirs: []string{WorkspaceConfigDir}})
	return tw
}

// wantConfigRefusal checks that err is the one-sentence refusal of the app's
// configuration, saying how the user changes it.
func wantConfigRefusal(t testing.TB, err error, says string) {
	t.Helper()
	wantProtectedRefusal(t, err, says, "Prototyper's own configuration", "the user changes it with a text editor")
}

func TestTheWorkspaceConfigurationIsNeverATarget(t *testing.T) {
	links := func(t *testing.T, tw *testWorkspace) {
		for name, target := range map[string]string{"cfg": ".prototyper", "servers.json": ".prototyper/mcp.json", "self": "."} {
			if err := os.Symlink(target, filepath.Join(tw.ws, name)); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Link(filepath.Join(tw.ws, ".prototyper", "mcp.json"), filepath.Join(tw.ws, "copy.json")); err != nil {
			t.Skipf("hard links are not possible here: %v", err)
		}
	}
	cases := []struct {
		name, tool, path, says string
	}{
		{"write its MCP servers", "write_file", ".prototyper/mcp.json", `".prototyper/mcp.json" is Prototyper's own configuration (the folder .prototyper)`},
		{"write another file in it", "write_file", ".prototyper/hooks.json", `".prototyper/hooks.json" is Prototyper's own configuration`},
		{"write in another letter case", "write_file", ".PROTOTYPER/mcp.json", "is Prototyper's own configuration"},
		{"write through ..", "write_file", "src/../.prototyper/mcp.json", `".prototyper/mcp.json" is`},
		{"edit its MCP servers", "edit_file", ".prototyper/mcp.json", "is Prototyper's own configuration"},
		{"read its MCP servers", "read_file", ".prototyper/mcp.json", "may not read or change"},
		{"delete its MCP servers", "delete_path", ".prototyper/mcp.json", "is Prototyper's own configuration"},
		{"delete the folder", "delete_path", ".prototyper", `".prototyper" is Prototyper's own configuration`},
		{"make a folder in it", "make_dir", ".prototyper/servers", "is Prototyper's own configuration"},
		{"list it", "list_dir", ".prototyper", "is Prototyper's own configuration"},
		{"search it", "search_files", ".prototyper", "is Prototyper's own configuration"},
		{"search its file", "search_files", ".prototyper/mcp.json", "is Prototyper's own configuration"},
		{"read through a link to the file", "read_file", "servers.json", `"servers.json" leads to Prototyper's own configuration (the folder .prototyper)`},
		{"write through a link to the file", "write_file", "servers.json", `"servers.json" leads to`},
		{"write through a link to the folder", "write_file", "cfg/mcp.json", `"cfg/mcp.json" leads to`},
		{"list through a link to the folder", "list_dir", "cfg", `"cfg" leads to`},
		{"write through a link to the workspace", "write_file", "self/.prototyper/mcp.json", `"self/.prototyper/mcp.json" leads to`},
		{"read through a hard link", "read_file", "copy.json", `"copy.json" leads to`},
		{"edit through a hard link", "edit_file", "copy.json", `"copy.json" leads to`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tw := configWorkspace(t, true)
			links(t, tw)
			before := snapshot(t, filepath.Join(tw.ws, ".prototyper", "mcp.json"))
			args := configCallArgs(c.tool, c.path)
			err := tw.refusal(t, c.tool, args, c.path)
			wantConfigRefusal(t, err, c.says)
			if got := tw.run(t, c.tool, args); !got.IsError || got.Content != err.Error() {
				t.Fatalf("through the registry: %+v", got)
			}
			before.check(t)
			entries, _ := os.ReadDir(filepath.Join(tw.ws, ".prototyper"))
			if len(entries) != 1 {
				t.Fatalf(".prototyper holds %d entries, want its mcp.json alone", len(entries))
			}
		})
	}
}

func TestTheWorkspaceConfigurationCannotBeCreated(t *testing.T) {
	for _, c := range []struct{ tool, path string }{
		{"write_file", ".prototyper/mcp.json"},
		{"write_file", ".Prototyper/mcp.json"},
		{"make_dir", ".prototyper"},
		{"make_dir", "self/.prototyper/x"},
	} {
		t.Run(c.tool+" "+c.path, func(t *testing.T) {
			tw := configWorkspace(t, false)
			os.Symlink(".", filepath.Join(tw.ws, "self"))
			_, err := tw.exec(t, t.Context(), c.tool, argsFor(c.tool, c.path), nil)
			wantConfigRefusal(t, err, "Prototyper's own configuration")
			entries, _ := os.ReadDir(tw.ws)
			if len(entries) != 1 {
				t.Fatalf("the workspace holds %d entries, want the link alone", len(entries))
			}
		})
	}
	// a link that would become the folder, were it made, leads nowhere a tool can write
	tw := configWorkspace(t, false)
	if err := os.Symlink(".prototyper", filepath.Join(tw.ws, "cfg")); err != nil {
		t.Fatal(err)
	}
	if res := tw.run(t, "write_file", argsFor("write_file", "cfg/mcp.json")); !res.IsError {
		t.Fatalf("a write through a dangling link to the folder was allowed: %s", res.Content)
	}
	if _, err := os.Lstat(filepath.Join(tw.ws, ".prototyper")); err == nil {
		t.Fatal(".prototyper was created")
	}
}

func TestAListingShowsTheConfigurationFolderWithoutItsContent(t *testing.T) {
	tw := configWorkspace(t, true)
	tw.write(t, "src/main.go", "package main // command\n")
	for _, args := range []map[string]any{
		{"path": ".", "recursive": true},
		{"path": ".", "recursive": true, "include_skipped": true},
		{"path": "."},
	} {
		res := tw.run(t, "list_dir", args)
		if res.IsError || !strings.Contains(res.Content, ".prototyper/ (Prototyper's own configuration, not listed)") || strings.Contains(res.Content, "mcp.json") {
			t.Fatalf("list_dir %v:\n%s", args, res.Content)
		}
	}
	res := tw.run(t, "search_files", map[string]any{"pattern": "command"})
	if res.IsError || res.Content != "src/main.go:1: package main // command" {
		t.Fatalf("the search must find the user's file and nothing of the configuration: %q", res.Content)
	}
}

// The user's config folder lies inside the workspace when the workspace is the
// home folder.
func TestTheUserConfigFolderInsideTheWorkspaceIsRefused(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.w.Close()
	tw.write(t, ".config/prototyper/mcp.json", mcpConfig)
	tw.write(t, ".config/other/settings.ini", "mine\n")
	tw.reopen(t, WorkspaceOptions{ConfigDirs: []string{WorkspaceConfigDir, filepath.Join(tw.ws, ".config", "prototyper")}})
	if err := os.Symlink(".config/prototyper", filepath.Join(tw.ws, "cfg")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, path, says string }{
		{"read_file", ".config/prototyper/mcp.json", `".config/prototyper/mcp.json" is Prototyper's own configuration (the folder .config/prototyper)`},
		{"read_file", "cfg/mcp.json", `"cfg/mcp.json" leads to Prototyper's own configuration (the folder .config/prototyper)`},
		{"search_files", "cfg", `"cfg" leads to`},
		{"write_file", ".config/Prototyper/mcp.json", "is Prototyper's own configuration"},
		{"delete_path", ".config", `folder ".config" holds Prototyper's own configuration, so the agent may not delete it`},
	} {
		args := configCallArgs(c.tool, c.path)
		_, err := tw.exec(t, t.Context(), c.tool, args, nil)
		if !errors.Is(err, ErrProtectedPath) || !strings.Contains(err.Error(), c.says) {
			t.Fatalf("%s %s: %v", c.tool, c.path, err)
		}
	}
	if res := tw.run(t, "read_file", map[string]any{"path": ".config/other/settings.ini"}); res.IsError {
		t.Fatalf("another program's configuration is the user's file: %s", res.Content)
	}
	if res := tw.run(t, "search_files", map[string]any{"pattern": "command|mine"}); res.Content != ".config/other/settings.ini:1: mine" {
		t.Fatalf("a search of the home folder passes the configuration over: %q", res.Content)
	}
}

// The user's config folder outside the workspace is out of reach as everything outside is,
// also through a link.
func TestTheUserConfigFolderOutsideIsOutOfReachThroughALink(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.w.Close()
	user := filepath.Join(tw.out, "config", "prototyper")
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "mcp.json"), []byte(mcpConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	tw.reopen(t, WorkspaceOptions{ConfigDirs: []string{WorkspaceConfigDir, user}})
	if err := os.Symlink(user, filepath.Join(tw.ws, "cfg")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, filepath.Join(user, "mcp.json"))
	for _, tool := range []string{"read_file", "write_file", "edit_file"} {
		if _, err := tw.exec(t, t.Context(), tool, argsFor(tool, "cfg/mcp.json"), nil); !errors.Is(err, ErrOutsideWorkspace) {
			t.Fatalf("%s cfg/mcp.json: %v", tool, err)
		}
	}
	before.check(t)
}

// The folder is looked up at each call: one made, or renamed into place, while
// the workspace is open is refused at once; a name it no longer has is free.
func TestAConfigurationFolderRenamedIntoPlaceIsRefusedAtOnce(t *testing.T) {
	tw := configWorkspace(t, false)
	tw.write(t, "staging/mcp.json", mcpConfig)
	if res := tw.run(t, "read_file", map[string]any{"path": "staging/mcp.json"}); res.IsError {
		t.Fatalf("before the rename: %s", res.Content)
	}
	if err := os.Rename(filepath.Join(tw.ws, "staging"), filepath.Join(tw.ws, ".prototyper")); err != nil {
		t.Fatal(err)
	}
	_, err := tw.exec(t, t.Context(), "read_file", map[string]any{"path": ".prototyper/mcp.json"}, nil)
	wantConfigRefusal(t, err, `".prototyper/mcp.json" is`)
	if res := tw.run(t, "write_file", argsFor("write_file", "staging/mcp.json")); res.IsError {
		t.Fatalf("the old name is the user's again: %s", res.Content)
	}
}

func TestUndoNeverRestoresIntoTheConfiguration(t *testing.T) {
	tw := configWorkspace(t, true)
	before := snapshot(t, filepath.Join(tw.ws, ".prototyper", "mcp.json"))
	content := []byte(mcpConfig + " ")
	err := tw.w.Restore(t.Context(), []PathState{
		{Path: ".prototyper/mcp.json", Kind: KindFile, Mode: 0o644, Content: content, Hash: HashContent(content), Size: int64(len(content))},
	})
	wantConfigRefusal(t, err, "is Prototyper's own configuration")
	before.check(t)
}

func TestAConfigurationFolderThatIsTheWorkspaceLeavesTheWorkspaceWritable(t *testing.T) {
	tw := newTestWorkspaceWith(t, WorkspaceOptions{})
	tw.reopen(t, WorkspaceOptions{ConfigDirs: []string{tw.ws, filepath.Dir(tw.ws)}})
	if res := tw.run(t, "write_file", argsFor("write_file", "mcp.json")); res.IsError {
		t.Fatal(res.Content)
	}
	if res := tw.run(t, "list_dir", map[string]any{"path": "."}); res.IsError || !strings.Contains(res.Content, "mcp.json") {
		t.Fatalf("list_dir: %+v", res)
	}
}

// A home folder without .config yet: the folder the app would read is refused before it
// exists, its parent is the user's.
func TestAUserConfigFolderNotMadeYetCannotBeCreated(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.reopen(t, WorkspaceOptions{ConfigDirs: []string{filepath.Join(tw.ws, ".config", "prototyper")}})
	for _, p := range []string{".config/prototyper/mcp.json", ".CONFIG/prototyper/mcp.json"} {
		_, err := tw.exec(t, t.Context(), "write_file", argsFor("write_file", p), nil)
		wantConfigRefusal(t, err, "is Prototyper's own configuration (the folder .config/prototyper)")
	}
	if _, err := os.Lstat(filepath.Join(tw.ws, ".config")); err == nil {
		t.Fatal(".config was created")
	}
	if res := tw.run(t, "write_file", argsFor("write_file", ".config/other/settings.ini")); res.IsError {
		t.Fatalf("the rest of .config is the user's: %s", res.Content)
	}
}

// A server file named on the command line (--mcp-config) may lie in the workspace: the
// agent rewriting it would choose the programs the app starts next.
func TestAConfigurationFileNamedOutsideTheFoldersIsNeverATarget(t *testing.T) {
	cases := []struct {
		name, tool, path, says string
	}{
		{"write it", "write_file", "conf/servers.json", `"conf/servers.json" is Prototyper's own configuration`},
		{"edit it", "edit_file", "conf/servers.json", "names the programs the app starts"},
		{"read it", "read_file", "conf/servers.json", "may not read or change"},
		{"delete it", "delete_path", "conf/servers.json", "is Prototyper's own configuration"},
		{"delete its folder", "delete_path", "conf", "holds a file of Prototyper's own configuration"},
		{"write through a link", "write_file", "link.json", `"link.json" leads to "servers.json"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tw := newTestWorkspace(t)
			tw.write(t, "conf/servers.json", mcpConfig)
			if err := os.Symlink("conf/servers.json", filepath.Join(tw.ws, "link.json")); err != nil {
				t.Fatal(err)
			}
			tw.reopen(t, WorkspaceOptions{ConfigFiles: []string{filepath.Join(tw.ws, "conf", "servers.json")}})
			before := snapshot(t, filepath.Join(tw.ws, "conf", "servers.json"))
			args := configCallArgs(c.tool, c.path)
			err := tw.refusal(t, c.tool, args, c.path)
			wantProtectedRefusal(t, err, c.says)
			before.check(t)
		})
	}
}

// TestNoToolMakesTheConfigurationFolderThroughALinkToAFolderNotMadeYet: a workspace whose
// .prototyper is a link to a folder that does not exist yet (a repository can hold such a
// link) gets no configuration from a tool that makes the link's target.
func TestNoToolMakesTheConfigurationFolderThroughALinkToAFolderNotMadeYet(t *testing.T) {
	for _, target := range []string{"conf", "sub/conf"} {
		t.Run(target, func(t *testing.T) {
			tw := configWorkspace(t, false)
			if err := os.Symlink(target, filepath.Join(tw.ws, ".prototyper")); err != nil {
				t.Fatal(err)
			}
			_, err := tw.exec(t, t.Context(), "write_file", argsFor("write_file", target+"/mcp.json"), nil)
			if _, statErr := os.Stat(filepath.Join(tw.ws, ".prototyper", "mcp.json")); statErr == nil {
				t.Fatalf("write_file %s/mcp.json wrote .prototyper/mcp.json through the link (err %v)", target, err)
			}
			wantConfigRefusal(t, err, target+"/mcp.json")
		})
	}
}

// A server file named on the command line that does not exist yet (the app reads none then)
// is not made by a tool either: the agent would choose what the app starts with it next,
// with the user's own trust. Nor is it made through a link to a file not made yet.
func TestAConfigurationFileNamedThatDoesNotExistYetIsNeverMade(t *testing.T) {
	for _, c := range []struct{ name, link, path string }{
		{"by its name", "", "servers.json"},
		{"through the link it is", "made.json", "made.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tw := newTestWorkspace(t)
			if c.link != "" {
				if err := os.Symlink(c.link, filepath.Join(tw.ws, "servers.json")); err != nil {
					t.Fatal(err)
				}
			}
			tw.reopen(t, WorkspaceOptions{ConfigFiles: []string{filepath.Join(tw.ws, "servers.json")}})
			_, err := tw.exec(t, t.Context(), "write_file", argsFor("write_file", c.path), nil)
			if _, statErr := os.Stat(filepath.Join(tw.ws, "servers.json")); statErr == nil {
				t.Fatalf("write_file %s made the server file named on the command line (err %v)", c.path, err)
			}
			wantProtectedRefusal(t, err, c.path, "Prototyper's own configuration")
		})
	}
}
