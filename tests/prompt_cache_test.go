package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/events"
	"prototyper/internal/ollamatest"
)

// chatRequest is what a test reads of a request to /api/chat.
type chatRequest struct {
	Model    string            `json:"model"`
	Messages []json.RawMessage `json:"messages"`
	Tools    json.RawMessage   `json:"tools"`
	Options  json.RawMessage   `json:"options"`
	Think    json.RawMessage   `json:"think"`
}

// completedUsages reads the usage of every message.completed line of `run --json`.
func completedUsages(t *testing.T, out string) (chatID string, usages []events.Usage) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e events.Event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.ChatID != "" {
			chatID = e.ChatID
		}
		if e.Type == events.MessageCompleted && e.Usage != nil {
			usages = append(usages, *e.Usage)
		}
	}
	return chatID, usages
}

// TestTheSecondTurnOfAChatBeginsWithTheFirstTurnsRequestByteForByte: the system prompt, the
// tools' definitions, the options and the messages already sent are sent again unchanged, so
// that the server's prompt cache serves them and evaluates only what is new (its log says how
// much it reused). `run --json` carries each answer's prompt and answer speeds; the counts and
// times of both turns are logged.
func TestTheSecondTurnOfAChatBeginsWithTheFirstTurnsRequestByteForByte(t *testing.T) {
	front, requests := ollamatest.RecordChats[chatRequest](t)
	db, ws := filepath.Join(t.TempDir(), "p.db"), t.TempDir()
	logFrom := len(ollamatest.Get(t).Logs())
	common := []string{"--ollama", front, "--db", db, "--workspace", ws, "--model", chattyModel.Name, "--json"}
	out1, errOut, code := cliRun(t, append(append([]string{"run"}, common...), "Say something")...)
	if code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	chatID, first := completedUsages(t, out1)
	out2, errOut, code := cliRun(t, append(append([]string{"run", "--chat", chatID}, common...), "And once more")...)
	if code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errOut)
	}
	_, second := completedUsages(t, out2)
	if strings.Contains(out2, `"type":"model.loading"`) {
		t.Logf("the second run waited for the model to load again: the server's cache of the first turn went with it")
	}
	if len(first) == 0 || len(second) == 0 {
		t.Fatalf("no message.completed with usage in run --json:\n%s\n%s", out1, out2)
	}
	for _, u := range append(first, second...) {
		if u.PromptTokensPerSec <= 0 || u.TokensPerSec <= 0 || u.PromptTokens <= 0 {
			t.Errorf("usage %+v: want the prompt's and the answer's speeds", u)
		}
	}
	t.Logf("turn 1: prompt %d tokens in %d ms (%.0f tok/s); turn 2: prompt %d tokens in %d ms (%.0f tok/s)",
		first[0].PromptTokens, first[0].PromptMs, first[0].PromptTokensPerSec,
		second[0].PromptTokens, second[0].PromptMs, second[0].PromptTokensPerSec)

	// the server's own word on its cache (its debug log): the second turn's prompt evaluation
	// reused all of the first turn's prompt but the last token (the turn's end marker) and
	// evaluated only what is new
	var slots []string
	for _, line := range strings.Split(ollamatest.Get(t).Logs()[logFrom:], "\n") {
		if strings.Contains(line, `msg="loading cache slot"`) {
			slots = append(slots, line)
		}
	}
	t.Logf("the server's cache at each turn:\n%s", strings.Join(slots, "\n"))
	var prompt, used int
	if len(slots) == 0 {
		t.Fatal("the server's log says nothing of its cache")
	} else if _, err := fmt.Sscanf(slots[len(slots)-1][strings.Index(slots[len(slots)-1], "prompt="):], "prompt=%d used=%d", &prompt, &used); err != nil {
		t.Fatalf("read %q: %v", slots[len(slots)-1], err)
	}
	if prompt != second[0].PromptTokens || used < first[0].PromptTokens-1 {
		t.Errorf("the second turn's prompt of %d tokens reused %d from the cache; want at least the first turn's %d but one", prompt, used, first[0].PromptTokens)
	}
	reqs := requests()
	if len(reqs) < 2 {
		t.Fatalf("%d chat requests recorded, want one a turn", len(reqs))
	}
	a, b := reqs[0], reqs[len(reqs)-1]
	messageBytes := 0
	for _, m := range a.Messages {
		messageBytes += len(m)
	}
	t.Logf("the first request: %d bytes of tools' definitions, %d bytes of messages", len(a.Tools), messageBytes)
	if !bytes.Equal(a.Tools, b.Tools) || !bytes.Equal(a.Options, b.Options) || !bytes.Equal(a.Think, b.Think) || a.Model != b.Model {
		t.Errorf("the second turn's tools, options or model differ from the first's:\n%s %s\n%s %s", a.Options, a.Think, b.Options, b.Think)
	}
	if len(b.Messages) <= len(a.Messages) {
		t.Fatalf("the second turn sent %d messages, the first %d", len(b.Messages), len(a.Messages))
	}
	for i, m := range a.Messages {
		if !bytes.Equal(m, b.Messages[i]) {
			t.Errorf("message %d of the first turn was sent again changed:\n%s\n%s", i, m, b.Messages[i])
		}
	}
}
