package tests

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/cli"
	"prototyper/internal/desktop"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// checkDesktop opens the window's session on the shared scripted server; each batch it
// delivers goes to onBatch too.
func checkDesktop(t *testing.T, onBatch func([]events.Event)) *desktop.Desktop {
	t.Helper()
	srv := ollamatest.Get(t)
	d, err := desktop.OpenDesktop(cli.DesktopOptions{Common: cli.Common{Ollama: srv.URL(), DB: filepath.Join(t.TempDir(), "p.db")},
		Workspace: t.TempDir()}, events.AckOnDelivery(events.SinkFunc(func(batch []events.Event) error {
		onBatch(batch)
		return nil
	})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// TestAModelCheckFromTheWindowSaysEachCaseAndKeepsTheResultForTheModelMenu: the window's check
// runs the six cases, says each as it starts and ends (check.progress, of no chat), keeps the
// result, and the model menu's list of results has it.
func TestAModelCheckFromTheWindowSaysEachCaseAndKeepsTheResultForTheModelMenu(t *testing.T) {
	var mu sync.Mutex
	var progress []events.Event
	d := checkDesktop(t, func(batch []events.Event) {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range batch {
			if e.Type == events.CheckProgress {
				progress = append(progress, e)
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	got, err := d.CheckModel(ctx, " "+checkNativeModel.Name+" ")
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != checkNativeModel.Name || got.Passed != 1 || got.Total != 6 || got.Calls != 12 || got.WellFormed != 12 || got.NumCtx == 0 {
		t.Errorf("result = %+v; want 1/6 with 12 well-formed calls and a context size", got)
	}
	kept, err := d.ModelChecks()
	if err != nil || len(kept) != 1 || kept[0].Model != checkNativeModel.Name || kept[0].Passed != 1 {
		t.Errorf("kept = %+v, %v; want the check of %s", kept, err, checkNativeModel.Name)
	}
	_ = d.Close() // delivers what the bridge still holds
	mu.Lock()
	defer mu.Unlock()
	if len(progress) != 12 {
		t.Fatalf("%d check.progress events, want a start and an end for each of six cases: %+v", len(progress), progress)
	}
	passed := 0
	for i, e := range progress {
		ended := int64(i+1) / 2
		wantStatus := events.CheckRunning
		if i%2 == 1 {
			wantStatus = events.CheckCaseEnded
		}
		if e.ChatID != "" || e.Model != checkNativeModel.Name || e.Status != wantStatus || e.Name == "" || e.Total != 6 || e.Completed != ended {
			t.Errorf("event %d = %+v; want %s of a case, %d of 6 ended, of no chat", i, e, wantStatus, ended)
		}
		if e.Status == events.CheckCaseEnded && e.OK != nil && *e.OK {
			passed++
		}
	}
	if passed != 1 {
		t.Errorf("%d cases said passed, want 1", passed)
	}
}

// TestAModelCheckStoppedFromTheWindowEndsAtOnceAndKeepsNothing: Stop ends the check under way
// with context.Canceled; no result is kept, and a second check of the model may start.
func TestAModelCheckStoppedFromTheWindowEndsAtOnceAndKeepsNothing(t *testing.T) {
	started := make(chan struct{})
	var once sync.Once
	d := checkDesktop(t, func(batch []events.Event) {
		for _, e := range batch {
			if e.Type == events.CheckProgress {
				once.Do(func() { close(started) })
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := d.CheckModel(ctx, checkNeverModel.Name)
		done <- err
	}()
	<-started
	if _, err := d.CheckModel(ctx, checkNeverModel.Name); !errors.Is(err, desktop.ErrCheckRunning) {
		t.Errorf("a second check of the model while one runs: %v, want ErrCheckRunning", err)
	}
	if err := d.StopModelCheck(checkNeverModel.Name); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("stopped check returned %v, want context.Canceled", err)
	}
	if kept, err := d.ModelChecks(); err != nil || len(kept) != 0 {
		t.Errorf("kept = %+v, %v; want nothing of a stopped check", kept, err)
	}
}

// checkSleeperModel runs a command that outlasts the check's case at every turn: its check is
// under way long enough for the user to stop it.
var checkSleeperModel = ollamatest.Model{Name: "e2e-check-sleeper", Scripts: ollamatest.Scripts{
	"*": ollamatest.ToolCall("run_command", map[string]any{"command": "sleep 60"}),
}}

// TestDesktopTheModelMenuChecksTheModelWithProgressAndShowsItsResult: in the model menu (Ctrl+M)
// a model never checked says so and offers "Check"; the check runs with its progress painted,
// then the menu shows "1/6 on this machine, N tok/s" and the header marks the model as one that
// fails most cases. Another model's check is stopped from the menu and keeps nothing.
func TestDesktopTheModelMenuChecksTheModelWithProgressAndShowsItsResult(t *testing.T) {
	r := startDesktopRunWith(t, checkNativeModel, store.Settings{}, "")
	r.openField("ctrl+m")
	if !r.app.says(checkNativeModel.Name + ": not checked") {
		t.Errorf("the model menu does not say that %s was never checked: %q", checkNativeModel.Name, r.app.textsWith("checked"))
	}
	r.app.screenshot("check-offered.png")
	r.app.press("Check")
	r.waitLogN(t, events.CheckProgress, 12, true, 3*time.Minute)
	r.app.waitControl(rolePushButton, "Check again", time.Minute)
	if !r.app.says("1/6 on this machine, ") {
		t.Errorf("the model menu does not show the check's result: %q", r.app.textsWith("on this machine"))
	}
	r.app.screenshot("check-result.png")
	r.app.key("Escape")
	r.app.waitNoControl(rolePushButton, "Check again", 20*time.Second)
	// closed, the menu's button still says the model fails most of the check
	if got := r.app.textsWith("1/6 on this machine"); len(got) == 0 {
		t.Errorf("the header does not mark a model that failed most of the check")
	}

	// another model, checked and stopped
	r.openAndType("ctrl+m", checkSleeperModel.Name, "check-other-model.png")
	r.app.key("Return")
	r.waitComposerFocus()
	r.openField("ctrl+m")
	r.app.press("Check")
	r.app.press("Stop the check")
	r.app.waitControl(rolePushButton, "Check", time.Minute)
	if got := r.app.textsWith("did not finish"); len(got) != 0 {
		t.Errorf("a check the user stopped is said as a failure: %q", got)
	}
	r.app.screenshot("check-stopped.png")
	_, db := r.finish(t, "check-end.png")
	if got, err := db.ModelChecks(checkSleeperModel.Name); err != nil || len(got) != 0 {
		t.Errorf("the stopped check kept %+v, %v", got, err)
	}
	if got, err := db.ModelChecks(checkNativeModel.Name); err != nil || len(got) != 1 || got[0].Passed != 1 {
		t.Errorf("the finished check kept %+v, %v; want one result of 1/6", got, err)
	}
}

// Scripted models of `prototyper check`: every case of the check opens a chat of its own, so
// each case's first turn gets the same "SU" script.
var (
	// checkNativeModel makes two calls in one turn through the API, then answers: it passes the
	// check's "two calls in one turn" and no other case.
	checkNativeModel = ollamatest.Model{Name: "e2e-check-native", Scripts: ollamatest.TwoWritesInOneTurn()}
	// checkNeverModel answers in words whatever it is asked.
	checkNeverModel = ollamatest.Model{Name: "e2e-check-never", Scripts: ollamatest.NeverCalls()}
)

// TestCLICheckTellsACallingModelFromOneThatNeverCallsAndModelsShowsTheResult: `prototyper
// check --json` reports the cases, their calls and figures; the result is kept in the store and
// `prototyper models` shows it beside each model.
func TestCLICheckTellsACallingModelFromOneThatNeverCallsAndModelsShowsTheResult(t *testing.T) {
	srv := ollamatest.Get(t)
	db := filepath.Join(t.TempDir(), "p.db")
	type report struct {
		Model      string `json:"model"`
		Passed     int    `json:"passed"`
		Total      int    `json:"total"`
		Calls      int    `json:"calls"`
		WellFormed int    `json:"wellFormed"`
		NumCtx     int    `json:"numCtx"`
		Memory     int64  `json:"memoryBytes"`
		Cases      []struct {
			Name   string `json:"name"`
			Passed bool   `json:"passed"`
		} `json:"cases"`
	}
	check := func(name string) report {
		out, errOut, code := cliRun(t, "check", "--ollama", srv.URL(), "--db", db, "--json", name)
		if code != 0 {
			t.Fatalf("check %s: exit %d: %s", name, code, errOut)
		}
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("check %s --json: %v\n%s", name, err, out)
		}
		t.Logf("check %s: %s", name, out)
		return r
	}
	native, never := check(checkNativeModel.Name), check(checkNeverModel.Name)
	if native.Total != 6 || len(native.Cases) != 6 || native.Passed != 1 || native.Calls != 12 || native.WellFormed != 12 {
		t.Errorf("native: %d/%d passed, %d calls, %d well formed; want 1/6, 12, 12", native.Passed, native.Total, native.Calls, native.WellFormed)
	}
	if never.Passed != 0 || never.Calls != 0 || never.WellFormed != 0 {
		t.Errorf("never: %d passed, %d calls, %d well formed; want none", never.Passed, never.Calls, never.WellFormed)
	}
	if native.NumCtx <= 0 || native.Memory <= 0 {
		t.Errorf("native: context %d, memory %d: not measured", native.NumCtx, native.Memory)
	}

	started := time.Now()
	table, errOut, code := cliRun(t, "check", "--ollama", srv.URL(), "--db", db, checkNativeModel.Name)
	t.Logf("prototyper check %s took %s:\n%s%s", checkNativeModel.Name, time.Since(started), errOut, table)
	if code != 0 || !strings.Contains(table, checkNativeModel.Name+" on this machine: 1/6, ") || !strings.Contains(errOut, "two calls in one turn") {
		t.Errorf("check %s without --json (exit %d) does not say the cases and the sum", checkNativeModel.Name, code)
	}

	list, errOut, code := cliRun(t, "models", "--ollama", srv.URL(), "--db", db)
	if code != 0 {
		t.Fatalf("models: exit %d: %s", code, errOut)
	}
	t.Logf("models:\n%s", list)
	for name, want := range map[string]string{
		checkNativeModel.Name: `1/6, \d{1,3}(,\d{3})*(\.\d)? tok/s$`,
		checkNeverModel.Name:  `0/6, \d{1,3}(,\d{3})*(\.\d)? tok/s$`,
		writerModel.Name:      ` -$`,
	} {
		line := ""
		for _, l := range strings.Split(list, "\n") {
			if strings.HasPrefix(l, name+" ") || strings.HasPrefix(l, name+":") {
				line = strings.TrimSpace(l)
			}
		}
		if !regexp.MustCompile(want).MatchString(line) {
			t.Errorf("models shows %s as %q; want its check column to match %q", name, line, want)
		}
	}
}

// TestCLICheckWhileTheStoreIsHeldReportsAndSaysTheResultWasNotKept: the window holds the
// store; the check still runs and prints its report, then says in one line that the result
// was not kept, and exits 1.
func TestCLICheckWhileTheStoreIsHeldReportsAndSaysTheResultWasNotKept(t *testing.T) {
	srv := ollamatest.Get(t)
	db := filepath.Join(t.TempDir(), "p.db")
	held, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	out, errOut, code := cliRun(t, "check", "--ollama", srv.URL(), "--db", db, checkNeverModel.Name)
	t.Logf("exit %d\n%s%s", code, errOut, out)
	if code != 1 || !strings.Contains(out, checkNeverModel.Name+" on this machine: 0/6") ||
		!strings.Contains(errOut, "the result was not kept") || !strings.Contains(errOut, "already running") {
		t.Errorf("want the report, then one line saying the result was not kept as Prototyper is running, and exit 1")
	}
}
