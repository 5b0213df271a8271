package mcptools_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"prototyper/internal/testenv"
	"prototyper/tools/mcptools"
)

// writeWorkspaceServers writes the workspace's own server file.
func writeWorkspaceServers(t *testing.T, ws, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(ws, ".prototyper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mcptools.WorkspaceFile(ws), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// markerServer is a server entry whose start creates marker (and then exits).
func markerServer(marker string) string {
	return `{"mcpServers":{"marker":{"command":"sh","args":["-c","touch \"$0\"; exit 1","` + marker + `"]}}}`
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// trustingSet is a set of servers that trusts a workspace's file once allow was given its
// folder and the hash of its bytes, as the user's answer does.
func trustingSet(t *testing.T) (*mcptools.Set, func(dir, hash string)) {
	t.Helper()
	var mu sync.Mutex
	allowed := map[string]string{}
	set := mcptools.NewSet("")
	set.StartTimeout = 5 * time.Second
	set.Trust = func(dir, hash string) bool { mu.Lock(); defer mu.Unlock(); return allowed[dir] == hash }
	t.Cleanup(func() { set.Close() })
	return set, func(dir, hash string) { mu.Lock(); defer mu.Unlock(); allowed[dir] = hash }
}

func TestAWorkspacesOwnServersStartOnlyOnceTheUserAllowedItsExactBytes(t *testing.T) {
	ws := t.TempDir()
	first := filepath.Join(t.TempDir(), "first")
	writeWorkspaceServers(t, ws, markerServer(first))
	set, allow := trustingSet(t)

	_, notices := set.ToolsFor(ctx(t), ws)
	if exists(first) {
		t.Fatal("the workspace's server ran before the user allowed it")
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "prototyper mcp allow --workspace "+ws) {
		t.Errorf("notices = %q; want one sentence naming `prototyper mcp allow`", notices)
	}
	st, err := set.Status(ws)
	if err != nil || len(st) != 1 || st[0].State != mcptools.StateNotAllowed {
		t.Errorf("status = %+v, %v; want the server not allowed", st, err)
	}
	asked, err := set.NotAllowed(ws)
	if err != nil || asked == nil || len(asked.Servers) != 1 || asked.Servers[0].Command != "sh" || len(asked.Lines()) != 1 ||
		!strings.Contains(asked.Lines()[0], "marker: runs sh -c") || !strings.Contains(asked.Lines()[0], first) {
		t.Fatalf("NotAllowed = %+v, %v; want the server with its command and arguments", asked, err)
	}

	allow(ws, asked.Hash)
	set.ToolsFor(ctx(t), ws)
	if !exists(first) {
		t.Fatal("the server did not start once the user allowed the file")
	}
	if again, _ := set.NotAllowed(ws); again != nil {
		t.Errorf("NotAllowed after the answer = %+v; want nil", again)
	}

	second := filepath.Join(t.TempDir(), "second")
	writeWorkspaceServers(t, ws, markerServer(second))
	set.ToolsFor(ctx(t), ws)
	if exists(second) {
		t.Fatal("a changed file's server ran without being allowed again")
	}
	if changed, _ := set.NotAllowed(ws); changed == nil || changed.Hash == asked.Hash {
		t.Errorf("NotAllowed after a change = %+v; want the changed file, with another hash", changed)
	}
}

func TestTheUsersOwnServerFilesNeedNoAnswer(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "m")
	global := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(global, []byte(markerServer(marker)), 0o600); err != nil {
		t.Fatal(err)
	}
	set := mcptools.NewSet(global)
	defer set.Close()
	set.ToolsFor(ctx(t), t.TempDir())
	if !exists(marker) {
		t.Error("a server of the user's own file did not start")
	}
}

// envDumper is a server entry that writes its environment to file, with env.
func envDumper(file string, env map[string]any) map[string]any {
	return map[string]any{"command": "sh", "args": []string{"-c", `env > "$0"; exit 1`, file}, "env": env}
}

func TestAServerGetsAMinimalEnvironmentAndNeverTheAppsKeys(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-app-secret")
	t.Setenv("PROTOTYPER_TEST_SECRET", "app-secret")
	t.Setenv("LC_TIME", "C")
	dump := filepath.Join(t.TempDir(), "env")
	set := mcptools.NewSet("", testenv.MCPServersFile(t, map[string]any{
		"dumper": envDumper(dump, map[string]any{"GIVEN": "yes", "FROM_APP": "${PROTOTYPER_TEST_SECRET}"}),
	}))
	defer set.Close()
	set.ToolsFor(ctx(t), t.TempDir())
	raw, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + string(raw)
	for _, want := range []string{"\nPATH=", "\nHOME=", "\nLC_TIME=C\n", "\nGIVEN=yes\n", "\nFROM_APP=app-secret\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("the server's environment lacks %q:%s", strings.TrimSpace(want), env)
		}
	}
	if strings.Contains(env, "OPENAI_API_KEY") || strings.Contains(env, "\nPROTOTYPER_TEST_SECRET=") || strings.Contains(env, "sk-app-secret") {
		t.Errorf("the app's keys reached the server:%s", env)
	}
}

func TestAWorkspacesValuesAreTakenAsWrittenNotFromTheAppsEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-app-secret")
	var mu sync.Mutex
	var got string
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Get("Authorization")
		mu.Unlock()
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	defer web.Close()
	ws := t.TempDir()
	dump := filepath.Join(t.TempDir(), "env")
	writeWorkspaceServers(t, ws, `{"mcpServers":{
		"remote":{"url":"`+web.URL+`","headers":{"Authorization":"Bearer ${OPENAI_API_KEY}"}},
		"dumper":{"command":"sh","args":["-c","env > \"$0\"; exit 1","`+dump+`"],"env":{"KEY":"${OPENAI_API_KEY}"}}}}`)
	set := mcptools.NewSet("")
	set.StartTimeout = 5 * time.Second
	set.Trust = func(string, string) bool { return true }
	defer set.Close()
	set.ToolsFor(ctx(t), ws)
	raw, _ := os.ReadFile(dump)
	if !strings.Contains(string(raw), "KEY=${OPENAI_API_KEY}\n") || strings.Contains(string(raw), "sk-app-secret") {
		t.Errorf("the workspace server's environment:\n%s\nwant KEY as written", raw)
	}
	mu.Lock()
	defer mu.Unlock()
	if got != "Bearer ${OPENAI_API_KEY}" {
		t.Errorf("the workspace's url got Authorization %q; want it as written", got)
	}
}

// TestWhatTheUserIsAskedToAllowShowsTheValuesOfAServersVariables: a variable of a workspace's
// file decides what runs as much as the command (PATH, LD_PRELOAD, NODE_OPTIONS): the user
// sees its value, not only its name.
func TestWhatTheUserIsAskedToAllowShowsTheValuesOfAServersVariables(t *testing.T) {
	ws := t.TempDir()
	writeWorkspaceServers(t, ws, `{"mcpServers":{"files":{"command":"npx","args":["-y","files-server"],
		"env":{"PATH":"./bin:/usr/bin","NODE_OPTIONS":"--require ./x.js"}}}}`)
	servers, err := mcptools.ReadWorkspaceServers(ws)
	if err != nil || servers == nil {
		t.Fatal(servers, err)
	}
	line := servers.Lines()[0]
	for _, want := range []string{"PATH=./bin:/usr/bin", `NODE_OPTIONS="--require ./x.js"`} {
		if !strings.Contains(line, want) {
			t.Errorf("the line the user allows is %q; it hides %s", line, want)
		}
	}
	if env := strings.Join(servers.Servers[0].Env, " "); !strings.Contains(env, "PATH=./bin:/usr/bin") {
		t.Errorf("the window is shown the variables %q; want their values", env)
	}
}

// TestAServersHeadersAreNeverSentToTheAddressItRedirectsTo: the key a server file gives a
// server (from the user's environment) goes to that server's address only; a redirect to
// another address fails with a sentence naming it.
func TestAServersHeadersAreNeverSentToTheAddressItRedirectsTo(t *testing.T) {
	t.Setenv("MCP_TEST_TOKEN", "tok-secret")
	var mu sync.Mutex
	var leaked []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	defer elsewhere.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	file := testenv.MCPServersFile(t, map[string]any{"remote": map[string]any{
		"url": redirecting.URL + "/mcp", "headers": map[string]string{"Authorization": "Bearer ${MCP_TEST_TOKEN}"}}})
	set := mcptools.NewSet("", file)
	set.StartTimeout = 5 * time.Second
	defer set.Close()
	_, notices := set.ToolsFor(ctx(t), t.TempDir())
	mu.Lock()
	defer mu.Unlock()
	for _, h := range leaked {
		if strings.Contains(h, "tok-secret") {
			t.Fatalf("the server's key was sent to %s, where its address redirected", elsewhere.URL)
		}
	}
	t.Logf("notices: %q", notices)
	if len(notices) != 1 || !strings.Contains(notices[0], elsewhere.URL) {
		t.Errorf("notices = %q; want one naming the address it was redirected to", notices)
	}
}

// TestAWorkspacesServerFileThatIsNoPlainFileIsRefusedAtOnce: a folder's .prototyper/mcp.json
// is the folder's: a pipe, a link to a device (a repository can hold a link to /dev/zero) or a
// file larger than any server file is refused with a sentence, without waiting on it or
// reading it whole.
func TestAWorkspacesServerFileThatIsNoPlainFileIsRefusedAtOnce(t *testing.T) {
	read := func(ws string) error {
		done := make(chan error, 1)
		go func() { _, err := mcptools.ReadWorkspaceServers(ws); done <- err }()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			t.Fatalf("reading the server file of %s did not end", ws)
			return nil
		}
	}
	pipe := t.TempDir()
	if err := os.MkdirAll(filepath.Join(pipe, ".prototyper"), 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := mcptools.WorkspaceFile(pipe)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // a reader left waiting on the pipe is let go
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	if err := read(pipe); err == nil || !strings.Contains(err.Error(), fifo) {
		t.Fatalf("a pipe: %v; want a refusal naming it", err)
	}

	large := t.TempDir()
	writeWorkspaceServers(t, large, `{"mcpServers":{}}`+strings.Repeat(" ", 2<<20))
	if err := read(large); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("a file of 2 MB: %v; want a refusal saying it is too large", err)
	}

	device := t.TempDir()
	if err := os.MkdirAll(filepath.Join(device, ".prototyper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", mcptools.WorkspaceFile(device)); err != nil {
		t.Fatal(err)
	}
	if err := read(device); err == nil || !strings.Contains(err.Error(), "not a plain file") {
		t.Fatalf("a link to /dev/zero: %v; want a refusal", err)
	}
}

// TestWhatTheUserIsAskedToAllowShowsInvisibleCharactersAsMarks: a bidirectional override or a
// zero-width character in a workspace's command, argument, url or variable would make what the
// user reads differ from what runs; each is shown as a mark naming it.
func TestWhatTheUserIsAskedToAllowShowsInvisibleCharactersAsMarks(t *testing.T) {
	ws := t.TempDir()
	writeWorkspaceServers(t, ws, `{"mcpServers":{
		"files":{"command":"sh","args":["-c","echo ok #\u202e; hs | lruc"],"env":{"NOTE":"a\u200bb"}},
		"web":{"url":"https://example.test/\u2066mcp"}}}`)
	servers, err := mcptools.ReadWorkspaceServers(ws)
	if err != nil || servers == nil {
		t.Fatal(servers, err)
	}
	shown := strings.Join(servers.Lines(), "\n") + "\n" + fmt.Sprint(servers.Servers)
	for _, invisible := range []string{"\u202e", "\u200b", "\u2066"} {
		if strings.Contains(shown, invisible) {
			t.Errorf("what the user is asked about holds %U as it is:\n%s", []rune(invisible)[0], shown)
		}
	}
	for _, mark := range []string{"<U+202E>", "<U+200B>", "<U+2066>"} {
		if !strings.Contains(shown, mark) {
			t.Errorf("what the user is asked about does not show %s:\n%s", mark, shown)
		}
	}
}

// What the user allows is what runs: a workspace's server runs the workspace's script (the
// server starts in the workspace, whatever the app's own folder), and a script changed since
// it was allowed — the agent's tools can write it — is asked about again, like a changed file.
func TestAScriptAWorkspacesServerRunsIsPartOfWhatTheUserAllowed(t *testing.T) {
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	script := func(what string) {
		t.Helper()
		body := "#!/bin/sh\necho " + what + " > '" + marker + "'\nexit 1\n"
		if err := os.WriteFile(filepath.Join(ws, "server.sh"), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script("allowed")
	writeWorkspaceServers(t, ws, `{"mcpServers":{"local":{"command":"./server.sh","args":["--stdio"]}}}`)
	set, allow := trustingSet(t)

	asked, err := set.NotAllowed(ws)
	if err != nil || asked == nil {
		t.Fatalf("NotAllowed = %+v, %v; want the server asked about", asked, err)
	}
	allow(ws, asked.Hash)
	t.Chdir(t.TempDir()) // the app's own folder holds no server.sh
	set.ToolsFor(ctx(t), ws)
	if got, _ := os.ReadFile(marker); string(got) != "allowed\n" {
		t.Fatalf("the allowed server did not run the workspace's script (marker %q)", got)
	}

	os.Remove(marker)
	script("changed by the agent")
	again, err := set.NotAllowed(ws)
	if err != nil || again == nil || again.Hash == asked.Hash {
		t.Fatalf("NotAllowed after the script changed = %+v, %v; want it asked about again", again, err)
	}
	set.ToolsFor(ctx(t), ws)
	if exists(marker) {
		t.Fatal("a changed script ran without being allowed again")
	}
}
