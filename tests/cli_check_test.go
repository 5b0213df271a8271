package tests

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/store"
)

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
		checkNativeModel.Name: `1/6, \d+ tok/s$`,
		checkNeverModel.Name:  `0/6, \d+ tok/s$`,
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
