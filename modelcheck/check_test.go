package modelcheck_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/model"
	"prototyper/modelcheck"
)

// Scripted models of the check, one per way a model can treat tools. A script's key is the
// trail of the conversation so far, a letter per message: S system, U user, A assistant,
// T tool result; "SUATT" is the turn after two results (internal/ollamatest/scripts.go). Every
// case of the check opens a chat of its own, so each case's first turn gets the same "SU".
var (
	// nativeCaller makes two calls in one turn through the API, then answers.
	nativeCaller = ollamatest.Model{Name: "check-native", Scripts: ollamatest.TwoWritesInOneTurn()}
	// textCaller writes its call as JSON in its answer, never through the API, then answers.
	textCaller = ollamatest.Model{Name: "check-text", Scripts: ollamatest.Scripts{
		"SU":   {"```json\n", `{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hello"}}`, "\n```"},
		"SUAT": {"Done", " with hello.txt."},
	}}
	// malformedCaller writes, at every turn, a call whose JSON does not close: the server's
	// parser swallows it, and the answer reaches the loop empty.
	malformedCaller = ollamatest.Model{Name: "check-malformed", Scripts: ollamatest.Scripts{
		"*": ollamatest.ToolCall("write_file", `{"path": "hello.txt", "content": "hello"`),
	}}
	// neverCaller answers in words whatever it is asked.
	neverCaller = ollamatest.Model{Name: "check-never", Scripts: ollamatest.NeverCalls()}
)

// solvers do each case right, one model a case (named "check-solves-" and the case's index):
// the cases can be passed through the real loop and tools, and the judges say so.
var solvers = []ollamatest.Model{
	{Name: "check-solves-0", Scripts: ollamatest.Scripts{
		"SU":   ollamatest.ToolCall("write_file", map[string]any{"path": "hello.txt", "content": "hello"}),
		"SUAT": {"Created", " hello.txt."},
	}},
	{Name: "check-solves-1", Scripts: ollamatest.Scripts{
		"SU":   ollamatest.ToolCall("edit_file", map[string]any{"path": "config.txt", "old_string": "port = 8080", "new_string": "port = 9090"}),
		"SUAT": {"The port", " is 9090."},
	}},
	{Name: "check-solves-2", Scripts: ollamatest.Scripts{
		"SU":   ollamatest.ToolCall("read_file", map[string]any{"path": "secret.txt"}),
		"SUAT": {"lantern"},
	}},
	nativeCaller,
	{Name: "check-solves-4", Scripts: ollamatest.Scripts{
		"SU":     ollamatest.ToolCall("read_file", map[string]any{"path": "notes.txt"}),
		"SUAT":   ollamatest.ToolCall("write_file", map[string]any{"path": "notes.txt", "content": "created"}),
		"SUATAT": {"It was", " missing; I created it."},
	}},
	{Name: "check-solves-5", Scripts: ollamatest.Scripts{
		"SU":   ollamatest.ToolCall("write_file", map[string]any{"path": "done.txt", "content": "done"}),
		"SUAT": {"I am", " done."},
	}},
}

func TestMain(m *testing.M) {
	models := []ollamatest.Model{textCaller, malformedCaller, neverCaller}
	os.Exit(ollamatest.Main(m, append(models, solvers...)...))
}

// check runs the whole suite on a scripted model of the shared server.
func check(t *testing.T, name string, cases ...modelcheck.Case) modelcheck.Report {
	t.Helper()
	server, err := model.NewOllamaServer(ollamatest.Get(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	rep, err := modelcheck.Run(ctx, server, modelcheck.Options{Model: name, Cases: cases})
	if err != nil {
		t.Fatalf("check %s: %v", name, err)
	}
	t.Logf("%s: %d/%d passed, %d calls, %d well formed (%d as text), %d malformed, first token %d ms, "+
		"prompt %.0f tok/s, answer %.1f tok/s, context %d/%d, in %s",
		name, rep.Passed, rep.Total, rep.Calls, rep.WellFormed, rep.TextCalls, rep.Malformed, rep.FirstTokenMs,
		rep.PromptTokensPerSec, rep.AnswerTokensPerSec, rep.ContextTokens, rep.NumCtx, time.Since(start))
	for _, c := range rep.Cases {
		t.Logf("  %-26s passed=%v calls=%d wellFormed=%d malformed=%d stop=%s %s", c.Name, c.Passed, c.Measures.Calls, c.WellFormed, c.Malformed, c.StopReason, c.Why)
	}
	return rep
}

// passedCase reports whether the report's case name passed.
func passedCase(rep modelcheck.Report, name string) bool {
	for _, c := range rep.Cases {
		if c.Name == name {
			return c.Passed
		}
	}
	return false
}

func TestTheCheckTellsApartModelsThatCallNativelyAsTextMalformedAndNever(t *testing.T) {
	native := check(t, nativeCaller.Name)
	text := check(t, textCaller.Name)
	malformed := check(t, malformedCaller.Name)
	never := check(t, neverCaller.Name)

	total := len(modelcheck.Cases())
	for _, rep := range []modelcheck.Report{native, text, malformed, never} {
		if rep.Total != total || len(rep.Cases) != total {
			t.Errorf("%s: %d cases reported of %d", rep.Model, len(rep.Cases), total)
		}
	}
	// The native caller: every call well formed and native; it passes the case its script does.
	if native.Calls != 2*total || native.WellFormed != native.Calls || native.TextCalls != 0 || native.Malformed != 0 {
		t.Errorf("native: %d calls, %d well formed, %d as text, %d malformed; want %d native well-formed calls",
			native.Calls, native.WellFormed, native.TextCalls, native.Malformed, 2*total)
	}
	if native.Passed != 1 || !passedCase(native, "two calls in one turn") {
		t.Errorf("native passed %d, want only \"two calls in one turn\"", native.Passed)
	}
	// The text caller: its calls are well formed, all written as text; it creates the file.
	if text.Calls != total || text.WellFormed != total || text.TextCalls != total || text.Malformed != 0 {
		t.Errorf("text: %d calls, %d well formed, %d as text, %d malformed; want %d well-formed text calls",
			text.Calls, text.WellFormed, text.TextCalls, text.Malformed, total)
	}
	if text.Passed != 1 || !passedCase(text, "create a file") {
		t.Errorf("text passed %d, want only \"create a file\"", text.Passed)
	}
	// No call of it went through the API, and its calls written as text passed a case: that
	// is the form its chats will use.
	if !text.WrittenCalls || !text.Record().WrittenCalls {
		t.Errorf("text: written calls %v (kept: %v); want the written form chosen", text.WrittenCalls, text.Record().WrittenCalls)
	}
	for _, rep := range []modelcheck.Report{native, malformed, never} {
		if rep.WrittenCalls {
			t.Errorf("%s: the written form chosen; want it only for a model whose calls work that way and fail through the API", rep.Model)
		}
	}
	// The malformed caller: nothing well formed, every case's attempt counted malformed.
	if malformed.WellFormed != 0 || malformed.Malformed < total || malformed.Passed != 0 {
		t.Errorf("malformed: %d well formed, %d malformed, %d passed; want 0, at least %d, 0",
			malformed.WellFormed, malformed.Malformed, malformed.Passed, total)
	}
	// The model that never calls: no call at all, nothing malformed, nothing passed.
	if never.Calls != 0 || never.Malformed != 0 || never.Passed != 0 {
		t.Errorf("never: %d calls, %d malformed, %d passed; want none", never.Calls, never.Malformed, never.Passed)
	}
	// The figures are measured, not left zero (the memory is the command line's, tested there).
	for _, rep := range []modelcheck.Report{native, text, malformed, never} {
		if rep.FirstTokenMs <= 0 && rep.PromptTokensPerSec <= 0 || rep.AnswerTokens <= 0 || rep.NumCtx <= 0 || rep.ContextTokens <= 0 {
			t.Errorf("%s: figures missing: first token %d ms, prompt %.0f tok/s, answer tokens %d, context %d/%d",
				rep.Model, rep.FirstTokenMs, rep.PromptTokensPerSec, rep.AnswerTokens, rep.ContextTokens, rep.NumCtx)
		}
	}
}

func TestEachCaseIsPassedByAModelThatDoesWhatItAsks(t *testing.T) {
	for i, c := range modelcheck.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			rep := check(t, solvers[i].Name, c)
			if rep.Passed != 1 || rep.Malformed != 0 || rep.WellFormed != rep.Calls {
				t.Errorf("%s: passed %d of 1, %d calls, %d well formed, %d malformed; want it passed with every call well formed",
					solvers[i].Name, rep.Passed, rep.Calls, rep.WellFormed, rep.Malformed)
			}
		})
	}
}

func TestACaseThatOutlastsItsTimeoutFailsAndTheSuiteGoesOn(t *testing.T) {
	server, err := model.NewOllamaServer(ollamatest.Get(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := modelcheck.Run(context.Background(), server, modelcheck.Options{Model: solvers[0].Name, CaseTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != rep.Total || rep.Passed != 0 {
		t.Fatalf("%d of %d cases reported, %d passed; want all reported, none passed", len(rep.Cases), rep.Total, rep.Passed)
	}
	for _, c := range rep.Cases {
		if !strings.Contains(c.Why, "took longer than 1ms") {
			t.Errorf("%s: why = %q, want that it took longer than its timeout", c.Name, c.Why)
		}
	}
}

func TestAModelTheServerDoesNotHaveIsOneErrorNotSixFailedCases(t *testing.T) {
	server, err := model.NewOllamaServer(ollamatest.Get(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := modelcheck.Run(context.Background(), server, modelcheck.Options{Model: "no-such-model"})
	if err == nil || !strings.Contains(err.Error(), "no-such-model") || len(rep.Cases) != 0 {
		t.Fatalf("Run = %d cases, %v; want no case and an error naming the model", len(rep.Cases), err)
	}
	t.Log(err)
}
