package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testWorkspace is a workspace folder beside an "outside" folder holding a
// secret the tools must never read, change or replace.
type testWorkspace struct {
	ws, out, secret string
	w               *Workspace
	reg             *Registry
}

const secretContent = "secret\n"

// newTestWorkspace opens the workspace of a test with the default options.
func newTestWorkspace(t testing.TB) *testWorkspace {
	t.Helper()
	return newTestWorkspaceWith(t, WorkspaceOptions{})
}

// reopen opens the workspace again with opts, in place of the one open now.
func (tw *testWorkspace) reopen(t testing.TB, opts WorkspaceOptions) {
	t.Helper()
	tw.w.Close()
	w, err := OpenWorkspace(tw.ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	tw.w, tw.reg = w, mustRegistry(t, w.Tools()...)
}

// newTestWorkspaceWith is newTestWorkspace with the given options.
func newTestWorkspaceWith(t testing.TB, opts WorkspaceOptions) *testWorkspace {
	t.Helper()
	base := t.TempDir()
	tw := &testWorkspace{ws: filepath.Join(base, "ws"), out: filepath.Join(base, "outside")}
	tw.secret = filepath.Join(tw.out, "secret.txt")
	for _, d := range []string{tw.ws, tw.out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(tw.secret, []byte(secretContent), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := OpenWorkspace(tw.ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	tw.w = w
	tw.reg = mustRegistry(t, w.Tools()...)
	return tw
}

// exec validates args like the registry and executes the tool directly, so
// a test can see the Go error behind an error result.
func (tw *testWorkspace) exec(t testing.TB, ctx context.Context, tool string, args map[string]any, progress ProgressFunc) (Result, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	a, err := tw.reg.Validate(tool, raw)
	if err != nil {
		return Result{}, err
	}
	if progress == nil {
		progress = func(any) {}
	}
	for _, tl := range tw.w.Tools() {
		if tl.Definition().Name == tool {
			return tl.Execute(ctx, Call{ID: "t", Name: tool, Args: a}, progress)
		}
	}
	t.Fatalf("no tool %q", tool)
	return Result{}, nil
}

// refusal executes the tool like exec and returns its error, failing t when the call was
// allowed; shown is the path as the case names it.
func (tw *testWorkspace) refusal(t testing.TB, tool string, args map[string]any, shown string) error {
	t.Helper()
	res, err := tw.exec(t, t.Context(), tool, args, nil)
	if err == nil {
		t.Fatalf("%s %q was allowed: %+v", tool, shown, res)
	}
	return err
}

// run goes through Registry.Run, as the agent loop does.
func (tw *testWorkspace) run(t testing.TB, tool string, args map[string]any) Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	return tw.reg.Run(t.Context(), tool, "t", raw, nil)
}

func (tw *testWorkspace) write(t testing.TB, rel, content string) {
	t.Helper()
	p := filepath.Join(tw.ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeSkipped writes what listing and searching pass over unless asked: a file that says
// Handler in a .git and in a node_modules folder.
func (tw *testWorkspace) writeSkipped(t testing.TB) {
	t.Helper()
	for _, dir := range []string{".git", "node_modules"} {
		tw.write(t, dir+"/x/index.js", "Handler\n")
	}
}

func (tw *testWorkspace) read(t testing.TB, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tw.ws, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tempFiles lists leftover temporary files anywhere in dir.
func tempFiles(t testing.TB, dir string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			found = append(found, p)
		}
		return nil
	})
	return found
}
