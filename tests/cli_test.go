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
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/internal/testenv"
	"prototyper/store"
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
	eachProvider(t, func(t *testing.T, p provider) {
		ws, db := t.TempDir(), filepath.Join(t.TempDir(), "p.db")
		out, errOut, code := cliRun(t, slices.Concat([]string{"run"}, p.args(ollamatest.Get(t)), []string{"--db", db, "--workspace", ws,
			"--model", writerModel.Name, "--think", "on", "--approve", "auto", "Write hello.txt"})...)
		assertWroteHello(t, ws, out, errOut, code)
		if strings.Contains(out, "<think>") {
			t.Errorf("the thinking tags reached the answer:\n%s", out)
		}
		list, _, code := cliRun(t, "chats", "list", "--db", db)
		if code != 0 || !strings.Contains(list, "Write hello.txt") {
			t.Errorf("chats list (exit %d):\n%s", code, list)
		}
	})
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

// TestCLIRunJSONPrintsEveryEventAsOneLineInSeqOrder: the envelope of every event, in seq
// order, with the usage the server reported.
func TestCLIRunJSONPrintsEveryEventAsOneLineInSeqOrder(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		out, errOut, code := cliRun(t, slices.Concat([]string{"run", "--json"}, p.args(ollamatest.Get(t)), []string{"--db", filepath.Join(t.TempDir(), "p.db"),
			"--workspace", t.TempDir(), "--model", writerModel.Name, "--think", "on", "--approve", "auto", "Write hello.txt"})...)
		if code != 0 {
			t.Fatalf("exit status %d; stderr:\n%s", code, errOut)
		}
		var types []string
		var last uint64
		usage := false
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var e struct {
				V     int    `json:"v"`
				Seq   uint64 `json:"seq"`
				Type  string `json:"type"`
				Usage *struct {
					PromptTokens int `json:"promptTokens"`
					EvalTokens   int `json:"evalTokens"`
				} `json:"usage"`
			}
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("not one JSON envelope per line: %q: %v", sc.Text(), err)
			}
			if e.V != 1 || e.Seq <= last {
				t.Fatalf("envelope %q: v %d, seq %d after %d", sc.Text(), e.V, e.Seq, last)
			}
			last = e.Seq
			types = append(types, e.Type)
			usage = usage || e.Type == "message.completed" && e.Usage != nil && e.Usage.PromptTokens > 0 && e.Usage.EvalTokens > 0
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
		if !usage {
			t.Errorf("no message.completed carries the usage the server reported:\n%s", out)
		}
	})
}

func TestCLIRunAskWithoutATerminalPausesThenDecideResumes(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		server := p.args(ollamatest.Get(t))
		ws, db := t.TempDir(), filepath.Join(t.TempDir(), "p.db")
		_, errOut, code := cliRun(t, slices.Concat([]string{"run"}, server, []string{"--db", db, "--workspace", ws,
			"--model", writerModel.Name, "--think", "on", "--approve", "ask", "Write hello.txt"})...)
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
		out, errOut, code := cliRun(t, slices.Concat([]string{"run"}, server, []string{"--db", db, "--chat", m[1], "--decide", "allow"})...)
		if code != 0 || !strings.Contains(out, "I wrote `hello.txt` with a greeting.") {
			t.Fatalf("resume: exit status %d; stdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		if got, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(got) != "hello from Prototyper\n" {
			t.Errorf("after allow, hello.txt = %q, %v", got, err)
		}
	})
}

// TestCLIRunAnAnswerTheServerCutsOffIsOneLineAndKeepsWhatArrived: the thinking and the
// partial answer are printed as they come, the failure is one line that says what to do, and
// the chat keeps both, marked incomplete.
func TestCLIRunAnAnswerTheServerCutsOffIsOneLineAndKeepsWhatArrived(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		db := filepath.Join(t.TempDir(), "p.db")
		out, errOut, code := cliRun(t, slices.Concat([]string{"run"}, p.args(ollamatest.Get(t)), []string{"--db", db, "--workspace", t.TempDir(),
			"--model", cutModel.Name, "--think", "on", "Explain it"})...)
		t.Logf("transcript:\n%s%s", out, errOut)
		if code != 1 || !oneFailureLine(p, errOut, "stopped before it was complete") {
			t.Errorf("exit %d, stderr %q; want exit 1 and one line saying the answer broke off and what to do", code, errOut)
		}
		for _, want := range []string{strings.Join(cutThinking, ""), strings.Join(cutAnswer, "")} {
			if !strings.Contains(out, want) {
				t.Errorf("the transcript lacks %q", want)
			}
		}
		chats, err := store.Open(db, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		chat := theOneChat(t, chats)
		chats.Close()
		shown, errOut, code := cliRun(t, "chats", "show", chat.ID, "--db", db)
		if code != 0 || !strings.Contains(shown, strings.Join(cutAnswer, "")) || !strings.Contains(shown, "incomplete") {
			t.Errorf("chats show (exit %d):\n%s%s\nwant the partial answer, marked incomplete", code, shown, errOut)
		}
	})
}

// TestCLIRunWhoseModelCrashesMidAnswerIsOneLineAndKeepsWhatArrived kills the model's runner
// while the answer streams: natively the server says so in the stream, through /v1 its
// message is lost (an empty chunk, then the end); either way one line says what to do, and
// the chat keeps what arrived.
func TestCLIRunWhoseModelCrashesMidAnswerIsOneLineAndKeepsWhatArrived(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		srv := ollamatest.Get(t)
		db := filepath.Join(t.TempDir(), "p.db")
		cmd := exec.Command(desktopBinary(t), slices.Concat([]string{"run", "--json"}, p.args(srv), []string{"--db", db,
			"--workspace", t.TempDir(), "--model", crashingModel.Name, "--think", "on", "Explain it"})...)
		var out, errOut testenv.Output
		cmd.Stdout, cmd.Stderr, cmd.Env = &out, &errOut, append(os.Environ(), "HOME="+t.TempDir())
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(60 * time.Second); !strings.Contains(out.String(), `"type":"text.delta"`); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				t.Fatalf("no answer within 60 s:\n%s%s", out.String(), errOut.String())
			}
		}
		if killed, err := srv.KillRunner(crashingModel); !killed || err != nil {
			t.Fatalf("kill the model's runner: found %v, %v", killed, err)
		}
		killedAt := time.Now()
		var exit *exec.ExitError
		if err := cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("the run ended with %v; want exit status 1", err)
		}
		t.Logf("the run ended %s after the runner was killed", time.Since(killedAt).Round(time.Millisecond))
		says := map[provider]string{store.ProviderOllama: "an error was encountered while running the model", store.ProviderOpenAI: "stopped before it was complete"}[p]
		if !oneFailureLine(p, errOut.String(), says) {
			t.Errorf("stderr %q; want one line saying %q and what to do", errOut.String(), says)
		}
		chats, err := store.Open(db, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer chats.Close()
		if msgs, err := chats.Messages(theOneChat(t, chats).ID); err != nil || len(msgs) != 2 || msgs[1].Complete ||
			!strings.HasPrefix(msgs[1].Content, paragraphPieces()[0]) || msgs[1].Thinking != cutThinking[0] {
			t.Errorf("messages = %+v, %v; want the prompt and what arrived of the answer, incomplete", msgs, err)
		}
	})
}

// oneFailureLine reports whether a failed run's stderr is one line saying says and what to
// do, after at most the line saying that p's server is loading the model (a busy machine can
// take over a second to answer).
func oneFailureLine(p provider, stderr, says string) bool {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	waiting := "waiting for Ollama to load "
	if p == store.ProviderOpenAI {
		waiting = "waiting for the model server to load "
	}
	if len(lines) > 2 || len(lines) == 2 && !strings.HasPrefix(lines[0], waiting) {
		return false
	}
	last := lines[len(lines)-1]
	return strings.Contains(last, says) && strings.Contains(last, "try again")
}

// TestCLIRunAgainstNoServerIsOneClearLine: where the settings say the user runs Ollama (else
// run starts one, TestCLIRunStartsTheLocalOllamaWhereNoneAnswersAndEndsInAnAnswer), no server
// is one line saying how to start it.
func TestCLIRunAgainstNoServerIsOneClearLine(t *testing.T) {
	db := dbWithManualOllama(t)
	_, errOut, code := cliRun(t, "run", "--ollama", "http://127.0.0.1:1", "--db", db,
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

// dbWithManualOllama is a new database whose settings say the user runs Ollama, so that no
// command starts one.
func dbWithManualOllama(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "p.db")
	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutSettings(store.Settings{ManualOllama: true}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	return db
}
