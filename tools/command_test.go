package tools

import (
	"strings"
	"testing"
	"unicode/utf8"

	"prototyper/internal/testenv"
	"prototyper/sandbox"
)

func TestTheSuggestedPatternIsTheProgramAndItsSubcommandOrScript(t *testing.T) {
	for cmd, want := range map[string]string{
		"npm test":                 "npm test",
		"npm test -- --watch":      "npm test",
		"go build ./...":           "go build",
		"python3 app.py --port 80": "python3 app.py",
		"ls -la":                   "ls",
		"make":                     "make",
		"  cargo   check  ":        "cargo check",
		"echo hi | tee x":          "echo hi",
		"cat $(ls)":                "cat",
		"":                         "",
	} {
		if got := CommandPattern(cmd); got != want {
			t.Errorf("CommandPattern(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestCommandOutputIsValidUTF8EvenWhenAChunkSplitsACharacter(t *testing.T) {
	var got []Output
	s := newOutputSplitter(func(u any) { got = append(got, u.(Output)) })
	text := "héllo → wörld\n"
	b := []byte(text)
	for i := range b { // one byte per chunk: every multi-byte character is split
		s.chunk(sandbox.Chunk{Stream: sandbox.Stdout, Data: b[i : i+1]})
	}
	s.chunk(sandbox.Chunk{Stream: sandbox.Stderr, Data: []byte{0xff, 'x', 0xe2, 0x86}}) // invalid, then a cut-off arrow
	s.flush()
	var out, errs strings.Builder
	for _, o := range got {
		if !utf8.ValidString(o.Text) {
			t.Fatalf("update %q is not valid UTF-8", o.Text)
		}
		if o.Stream == "stdout" {
			out.WriteString(o.Text)
		} else {
			errs.WriteString(o.Text)
		}
	}
	if out.String() != text {
		t.Errorf("stdout %q, want %q", out.String(), text)
	}
	if errs.String() != "\uFFFDx\uFFFD" {
		t.Errorf("stderr %q, want the invalid bytes replaced", errs.String())
	}
}

// The database kept in the workspace is masked for a command, and so are its backups (full
// copies of every chat) and its lock: a command reads none of them.
func TestACommandReadsNeitherTheDatabaseNorItsBackupsInTheWorkspace(t *testing.T) {
	testenv.LookPath(t, "", "bwrap", "install the package bubblewrap (scripts/install-deps.sh does)")
	tw := newTestWorkspaceWith(t, WorkspaceOptions{Commands: true, ProtectedFiles: []string{"p.db"}})
	for _, name := range []string{"p.db", "p.db.schema1.bak", "p.db.lock", "P.DB.schema2.bak"} {
		tw.write(t, name, "chat-history-of "+name+"\n")
	}
	tw.write(t, "p.dbx", "an ordinary file\n")
	res, err := tw.exec(t, t.Context(), RunCommand, map[string]any{"command": "cat p.db* P.DB* 2>&1; true"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Content, "chat-history-of") {
		t.Fatalf("the command read the app's database or a file beside it:\n%s", res.Content)
	}
	if !strings.Contains(res.Content, "an ordinary file") {
		t.Fatalf("the command did not read an ordinary file of the workspace:\n%s", res.Content)
	}
}
