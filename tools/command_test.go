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
		"go -C web build":          "go -C web",
		"python3 app.py --port 80": "python3 app.py",
		"python3 -m pytest -x":     "python3 -m pytest",
		"bash build.sh --fast":     "bash build.sh",
		"ls -la":                   "ls -la",
		"make":                     "make",
		"  cargo   check  ":        "cargo check",
		"echo hi | tee x":          "echo hi",
		"cat $(ls)":                "",
		"":                         "",
	} {
		if got := CommandPattern(cmd); got != want {
			t.Errorf("CommandPattern(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestTheSuggestedPatternOfCodeGivenInlineIsTheWholeLineNeverABareInterpreter(t *testing.T) {
	for cmd, want := range map[string]string{
		"bash -c 'echo hi'":                 "bash -c 'echo hi'",
		"sh -c make":                        "sh -c make",
		"/bin/sh -c make":                   "/bin/sh -c make",
		"python3 -c 'print(1)'":             "python3 -c 'print(1)'",
		"python3.12 -c pass":                "python3.12 -c pass",
		"python3 -W ignore app.py":          "python3 -W ignore app.py",
		"node -e 'console.log(1)'":          "node -e 'console.log(1)'",
		"perl -e 'print 1'":                 "perl -e 'print 1'",
		"perl -pi -e s/a/b/ f.txt":          "perl -pi -e s/a/b/ f.txt",
		"ruby -e 'puts 1'":                  "ruby -e 'puts 1'",
		"awk '{print $1}' f.txt":            "awk '{print $1}' f.txt",
		"find . -name x -exec rm {} +":      "find . -name x -exec rm {} +",
		"xargs rm":                          "xargs rm",
		"timeout 10 npm test":               "timeout 10 npm test",
		"bash":                              "",
		"python3":                           "",
		"bash -c 'make; rm -rf src'":        "",
		"env FOO=1 npm test":                "env FOO=1 npm test",
		"env FOO=1 npm":                     "env FOO=1 npm",
		"CI=1 NODE_ENV=test npm test -- -u": "CI=1 NODE_ENV=test npm test",
		"env FOO=1 bash -c 'echo hi'":       "env FOO=1 bash -c 'echo hi'",
		"env -S 'bash -c x'":                "env -S 'bash -c x'",
		"env":                               "env",
		"LD_PRELOAD=./x.so ls":              "LD_PRELOAD=./x.so ls",
		"FOO=$(id) npm test":                "",
		"HOME=~ npm test":                   "HOME=~ npm test",
		"sudo rm -rf /":                     "sudo rm -rf /",
		"ls $HOME":                          "ls $HOME",
		"echo \u202etxt.exe\u200b":          "",
		"cat \u200bnotes.txt":               "",
	} {
		got := CommandPattern(cmd)
		if got != want {
			t.Errorf("CommandPattern(%q) = %q, want %q", cmd, got, want)
		}
		if got != "" && strings.Join(strings.Fields(cmd), " ") != got {
			for _, bare := range []string{"bash", "sh", "/bin/sh", "python3", "python3.12", "node", "perl", "ruby", "awk", "env FOO=1", "env", "xargs", "find", "sudo", "timeout"} {
				if got == bare {
					t.Errorf("CommandPattern(%q) = %q: it would allow any script", cmd, got)
				}
			}
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
