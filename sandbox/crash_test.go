package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"prototyper/internal/testenv"
	"testing"
	"time"
)

const (
	helperEnv          = "PROTOTYPER_SANDBOX_HELPER"
	helperWorkspaceEnv = "PROTOTYPER_SANDBOX_HELPER_WORKSPACE"
	crashMarker        = "987650"
)

// startHelperApp starts the test binary as the app in helper mode mode on workspace ws, with
// env added to its environment, and returns it and its output's lines; the test's end kills
// it, so that a failing test leaves no app behind.
func startHelperApp(t *testing.T, mode, ws string, env ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	app := exec.Command(os.Args[0], "-test.run", "^$")
	app.Env = append(append(os.Environ(), helperEnv+"="+mode, helperWorkspaceEnv+"="+ws), env...)
	return app, bufio.NewScanner(testenv.StartApp(t, app))
}

// helperMain is the test binary standing in for the app: it runs one command in the
// workspace it is given and prints what happens.
func helperMain() {
	ws := os.Getenv(helperWorkspaceEnv)
	if os.Getenv(helperEnv) == "server" {
		serverHelperMain(ws)
		return
	}
	command, opts := "echo ran > ran.txt", Options{Workspace: ws}
	switch os.Getenv(helperEnv) {
	case "crash":
		command = "echo new > new.txt; echo changed >> existing.txt; echo started; sleep " + crashMarker
	case "crash-unconfined":
		command, opts.Unconfined = "setsid sleep "+crashMarker+"1 & sleep "+crashMarker+"2 & echo started; wait", true
	}
	_, err := Run(context.Background(), command, opts, func(c Chunk) error {
		os.Stdout.Write(c.Data)
		return nil
	})
	if errors.Is(err, ErrUnavailable) {
		fmt.Println("unavailable: " + err.Error())
		return
	}
	fmt.Println("ended:", err)
}

func TestKillingTheAppEndsEveryProcessOfAnUnconfinedCommand(t *testing.T) {
	app, lines := startHelperApp(t, "crash-unconfined", t.TempDir())
	for lines.Scan() && lines.Text() != "started" {
	}
	for len(processesWith("sleep\x00"+crashMarker+"1")) == 0 || len(processesWith("sleep\x00"+crashMarker+"2")) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	app.Process.Kill() // kill -9
	app.Wait()
	awaitNoProcessWith(t, "sleep\x00"+crashMarker, 2*time.Second)
}

func TestKillingTheAppLeavesNoProcessAndTheWorkspaceUnchanged(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"existing.txt": "as it was\n"})
	before := snapshot(t, ws)

	stageDir := t.TempDir()
	app, lines := startHelperApp(t, "crash", ws, "TMPDIR="+stageDir)
	for lines.Scan() && lines.Text() != "started" {
	}
	for len(processesWith("sleep\x00"+crashMarker)) == 0 { // the command is running
		time.Sleep(5 * time.Millisecond)
	}
	app.Process.Kill() // kill -9
	app.Wait()

	awaitNoProcessWith(t, crashMarker, 2*time.Second)
	if after := snapshot(t, ws); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("the workspace changed: before %v, after %v", before, after)
	}

	// The dead app's folder is swept by the next run.
	left, _ := filepath.Glob(filepath.Join(stageDir, stagePattern))
	if len(left) != 1 {
		t.Fatalf("the killed app's run folder: %v", left)
	}
	res, _ := run(t, t.TempDir(), "true", Options{StageDir: stageDir})
	res.Changes.Close()
	if now, _ := filepath.Glob(filepath.Join(stageDir, "*")); len(now) != 0 {
		t.Fatalf("after the next run the stage folder holds %v", now)
	}
}
