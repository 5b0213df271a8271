package tests

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/agentloop"
	"prototyper/internal/ollamatest"
)

// checkTextModel writes its call as JSON in its answer, never through the API, then answers:
// the check's "create a file" passes with it, asked natively or for calls written as text.
var checkTextModel = ollamatest.Model{Name: "e2e-check-text", Scripts: ollamatest.Scripts{
	"SU":   {"```json\n", `{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hello"}}`, "\n```"},
	"SUAT": {"Done", " with hello.txt."},
}}

// TestAStoredCheckThatFoundWrittenCallsWorkingDrivesTheNextChatInThatFormFromItsFirstRequest:
// `prototyper check` finds no call of the model working through the API and its calls
// written as text working, and keeps that; the model's next chat asks for calls written as
// text in its very first request (no tools offered natively, the system prompt listing them),
// says so once, and a chat after it starts the same way without saying it again.
func TestAStoredCheckThatFoundWrittenCallsWorkingDrivesTheNextChatInThatFormFromItsFirstRequest(t *testing.T) {
	srv := ollamatest.Get(t)
	db := filepath.Join(t.TempDir(), "p.db")
	out, errOut, code := cliRun(t, "check", "--ollama", srv.URL(), "--db", db, "--json", checkTextModel.Name)
	if code != 0 {
		t.Fatalf("check: exit %d: %s", code, errOut)
	}
	var rep struct {
		Passed       int  `json:"passed"`
		WrittenCalls bool `json:"writtenCalls"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || !rep.WrittenCalls || rep.Passed == 0 {
		t.Fatalf("check --json: %+v, %v; want calls written as text found working:\n%s", rep, err, out)
	}

	front, requests := ollamatest.RecordChats[chatRequest](t)
	chat := func(prompt string) string {
		out, errOut, code := cliRun(t, "run", "--ollama", front, "--db", db, "--workspace", t.TempDir(), "--model", checkTextModel.Name,
			"--approve", "auto", "--json", prompt)
		// a call written as text waits for the user, even under --approve auto: the run pauses
		if code != 4 || !strings.Contains(errOut, "write_file hello.txt (written as text by the model) waits for approval") {
			t.Fatalf("run %q: exit %d: %s; want the call written as text read as a call, waiting for approval", prompt, code, errOut)
		}
		return out
	}
	first := chat("Create hello.txt")
	reqs := requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the server")
	}
	if tools := strings.TrimSpace(string(reqs[0].Tools)); tools != "" && tools != "null" && tools != "[]" {
		t.Errorf("the chat's first request offered tools natively: %s", tools)
	}
	if system := string(reqs[0].Messages[0]); !strings.Contains(system, "write_file") || !strings.Contains(system, `\"name\": \"TOOL\"`) {
		t.Errorf("the first request's system prompt does not ask for calls written as text: %s", system)
	}
	said := `"code":"` + agentloop.CodeCallsWritten + `"`
	if n := strings.Count(first, said); n != 1 || !strings.Contains(first, "The model check found") {
		t.Errorf("the first chat said the form %d times; want once, saying the check chose it:\n%s", n, first)
	}
	before := len(requests())
	second := chat("Create hello.txt again")
	if strings.Contains(second, said) {
		t.Errorf("the next chat said the form again")
	}
	if reqs := requests(); len(reqs) <= before || len(reqs[before].Tools) != 0 && string(reqs[before].Tools) != "null" {
		t.Errorf("the next chat's first request offered tools natively")
	}
}
