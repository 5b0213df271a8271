package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"prototyper/internal/ollamatest"
)

// cliRun runs `prototyper ARGS…` (the production binary) with no terminal and returns its
// output and exit status.
func cliRun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return cliRunEnv(t, nil, args...)
}

// cliRunEnv is cliRun with env (NAME=value entries) added to the environment.
func cliRunEnv(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(desktopBinary(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir()), env...)
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("run prototyper: %v", err)
	}
	return out.String(), errb.String(), code
}

// assertWroteHello checks the transcript of a run of writerModel: exit 0, its thinking, its
// card, its answer, and the file in ws.
func assertWroteHello(t *testing.T, ws, out, errOut string, code int) {
	t.Helper()
	t.Logf("transcript:\n%s%s", out, errOut)
	if code != 0 {
		t.Fatalf("exit status %d, want 0; stderr:\n%s", code, errOut)
	}
	for _, want := range []string{"I should write hello.txt.", "✓ write_file hello.txt", "I wrote `hello.txt` with a greeting."} {
		if !strings.Contains(out, want) {
			t.Errorf("the transcript lacks %q", want)
		}
	}
	wantContent(t, filepath.Join(ws, "hello.txt"), "hello from Prototyper\n")
}

func TestCLIRunThinksWritesTheFileAndAnswers(t *testing.T) {
	srv := ollamatest.Get(t)
	ws, db := t.TempDir(), filepath.Join(t.TempDir(), "p.db")
	out, errOut, code := cliRun(t, "run", "--ollama", srv.URL(), "--db", db, "--workspace", ws,
		"--model", writerModel.Name, "--think", "on", "--approve", "auto", "Write hello.txt")
	assertWroteHello(t, ws, out, errOut, code)
	list, _, code := cliRun(t, "chats", "list", "--db", db)
	if code != 0 || !strings.Contains(list, "Write hello.txt") {
		t.Errorf("chats list (exit %d):\n%s", code, list)
	}
}

// TestCLIRunNeverLetsTheAgentReplaceTheDatabaseInTheWorkspace: with the database in the
// workspace folder itself (`--db ./prototyper.db`), a write to it is refused, even
// auto-approved, and every chat is still there afterwards.
func TestCLIRunNeverLetsTheAgentReplaceTheDatabaseInTheWorkspace(t *testing.T) {
	srv := ollamatest.Get(t)
	ws := t.TempDir()
	db := filepath.Join(ws, "prototyper.db")
	out, errOut, code := cliRun(t, "run", "--ollama", srv.URL(), "--db", db, "--workspace", ws,
		"--model", clobberModel.Name, "--approve", "auto", "Replace prototyper.db")
	t.Logf("transcript:\n%s%s", out, errOut)
	if code != 0 {
		t.Fatalf("exit status %d, want 0; stderr:\n%s", code, errOut)
	}
	if !strings.Contains(out, "Prototyper's own database") {
		t.Errorf("the transcript does not say the write was refused as the app's database:\n%s", out)
	}
	list, listErr, code := cliRun(t, "chats", "list", "--db", db)
	if code != 0 || !strings.Contains(list, "Replace prototyper.db") {
		t.Errorf("after the run, chats list (exit %d):\n%s%s", code, list, listErr)
	}
}

func TestCLIRunJSONPrintsEveryEventAsOneLineInSeqOrder(t *testing.T) {
	srv := ollamatest.Get(t)
	out, errOut, code := cliRun(t, "run", "--json", "--ollama", srv.URL(), "--db", filepath.Join(t.TempDir(), "p.db"),
		"--workspace", t.TempDir(), "--model", writerModel.Name, "--think", "on", "--approve", "auto", "Write hello.txt")
	if code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, errOut)
	}
	var types []string
	var last uint64
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var e struct {
			V    int    `json:"v"`
			Seq  uint64 `json:"seq"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not one JSON envelope per line: %q: %v", sc.Text(), err)
		}
		if e.V != 1 || e.Seq <= last {
			t.Fatalf("envelope %q: v %d, seq %d after %d", sc.Text(), e.V, e.Seq, last)
		}
		last = e.Seq
		types = append(types, e.Type)
	}
	joined := strings.Join(types, " ")
	for _, want := range []string{"run.started", "thinking.delta", "tool.call", "tool.result", "text.delta", "message.completed"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %s event in %s", want, joined)
		}
	}
	if types[len(types)-1] != "phase" || !strings.Contains(joined, "run.finished") {
		t.Errorf("events end with %v, want run.finished then the idle phase", types[len(types)-3:])
	}
}

func TestCLIRunAskWithoutATerminalPausesThenDecideResumes(t *testing.T) {
	srv := ollamatest.Get(t)
	ws, db := t.TempDir(), filepath.Join(t.TempDir(), "p.db")
	_, errOut, code := cliRun(t, "run", "--ollama", srv.URL(), "--db", db, "--workspace", ws,
		"--model", writerModel.Name, "--think", "on", "--approve", "ask", "Write hello.txt")
	if code != 4 {
		t.Fatalf("exit status %d, want 4 (paused awaiting approval); stderr:\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(ws, "hello.txt")); err == nil {
		t.Fatal("the file was written before anyone approved")
	}
	m := regexp.MustCompile(`--chat (\S+) --decide`).FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("stderr does not say how to resume:\n%s", errOut)
	}
	_, errOut, code = cliRun(t, "run", "--ollama", srv.URL(), "--db", db, "--chat", m[1], "--decide", "allow")
	if code != 0 {
		t.Fatalf("resume: exit status %d; stderr:\n%s", code, errOut)
	}
	wantContent(t, filepath.Join(ws, "hello.txt"), "hello from Prototyper\n") // after allow
}

func TestCLIRunAgainstNoServerIsOneClearLine(t *testing.T) {
	_, errOut, code := cliRun(t, "run", "--ollama", "http://127.0.0.1:1", "--db", filepath.Join(t.TempDir(), "p.db"),
		"--workspace", t.TempDir(), "--model", "m", "hi")
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if !strings.Contains(errOut, "Ollama is not running at http://127.0.0.1:1") || !strings.Contains(errOut, "ollama serve") {
		t.Errorf("stderr = %q, want the not-running sentence with how to start it", errOut)
	}
}

func TestCLIRunImageReachesAModelThatSeesAndIsRefusedForOneThatCannot(t *testing.T) {
	srv := ollamatest.Get(t)
	pic := filepath.Join(t.TempDir(), "shot.png")
	if err := os.WriteFile(pic, screenshotPNG(t), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(model string) (string, string, int) {
		return cliRun(t, "run", "--ollama", srv.URL(), "--db", filepath.Join(t.TempDir(), "p.db"), "--workspace", t.TempDir(),
			"--model", model, "--think", "on", "--image", pic, "What is in this picture?")
	}
	out, errOut, code := run(seeingModel.Name)
	if code != 0 || !strings.Contains(out, "I see one image in your message.") {
		t.Errorf("exit status %d, stdout %q, stderr %q; want the model's word that it got one image", code, out, errOut)
	}
	out, errOut, code = run(writerModel.Name)
	if code != 1 || !strings.Contains(errOut, "e2e-writer cannot see images") || out != "" {
		t.Errorf("exit status %d, stdout %q, stderr %q; want status 1 and the sentence, before anything is sent", code, out, errOut)
	}
}
