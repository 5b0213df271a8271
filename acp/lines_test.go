package acp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// promptLine is a session/prompt request of id whose line is n bytes long.
func promptLine(t *testing.T, id, n int) string {
	t.Helper()
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"`, id)
	tail := `"}]}}`
	pad := n - len(head) - len(tail)
	if pad < 0 {
		t.Fatal("n too small")
	}
	return head + strings.Repeat("x", pad) + tail + "\n"
}

// TestAMessageTooLongToReadIsAnsweredAndTheConnectionGoesOn: a prompt one byte over the
// longest message the connection reads (a large image, say) is answered with a sentence
// naming its size, and the connection answers the next request; a prompt of exactly that
// length reaches the agent.
func TestAMessageTooLongToReadIsAnsweredAndTheConnectionGoesOn(t *testing.T) {
	editorIn, agentOut := io.Pipe()
	agentIn, editorOut := io.Pipe()
	serverOn(t, agentOut, boundLines(agentIn, maxMessage, slog.New(slog.DiscardHandler)))
	answers := make(chan map[string]any, 8)
	go func() {
		sc := bufio.NewScanner(editorIn)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				answers <- m
			}
		}
	}()
	byID := map[float64]string{}
	next := func() map[string]any {
		t.Helper()
		select {
		case m := <-answers:
			return m
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer after %v: the connection stopped reading", byID)
			return nil
		}
	}
	go func() { // the editor writes on while the agent reads, or not
		for _, line := range []string{promptLine(t, 1, maxMessage+1), promptLine(t, 2, maxMessage), promptLine(t, 3, 200)} {
			if _, err := io.WriteString(editorOut, line); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { _ = agentIn.Close() })
	for range 3 {
		m := next()
		e, _ := m["error"].(map[string]any)
		msg, _ := e["message"].(string)
		id, _ := m["id"].(float64)
		byID[id] = msg
	}
	if !strings.Contains(byID[1], "10.0 MB, over the 10 MB") {
		t.Errorf("answer to the long prompt: %q, want its size and the limit", byID[1])
	}
	for _, id := range []float64{2, 3} {
		if !strings.Contains(byID[id], "no session") {
			t.Errorf("answer to prompt %v: %q, want the agent's own (no session)", id, byID[id])
		}
	}
}

func TestReadLineKeepsTheHeadOfALineTooLongAndDropsTheRest(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader(`{"id":7,"x":"`+strings.Repeat("y", 100<<10)+"\"}\nnext\n"), headSize)
	line, n, over, err := readLine(br, 1000)
	if err != nil || !over || len(line) != headSize || n != int64(100<<10+len(`{"id":7,"x":""}`)) {
		t.Fatalf("readLine = %d bytes, n %d, over %v, %v", len(line), n, over, err)
	}
	if got := string(stand(line, methodTooLarge, n, slog.New(slog.DiscardHandler))); !strings.Contains(got, `"id":7`) || !strings.Contains(got, methodTooLarge) {
		t.Errorf("substitute %q, want id 7 and %s", got, methodTooLarge)
	}
	if line, _, over, _ := readLine(br, 1000); over || string(line) != "next\n" {
		t.Errorf("next line %q (over %v), want it whole", line, over)
	}
}

// TestAMessageThatIsNotJSONIsAnsweredByItsId: a request cut short (or otherwise not JSON) is
// answered with a parse error for its id, rather than left waiting forever, and the
// connection answers the next one.
func TestAMessageThatIsNotJSONIsAnsweredByItsId(t *testing.T) {
	editorIn, agentOut := io.Pipe()
	agentIn, editorOut := io.Pipe()
	t.Cleanup(func() { _ = agentIn.Close() })
	serverOn(t, agentOut, boundLines(agentIn, maxMessage, slog.New(slog.DiscardHandler)))
	go func() {
		_, _ = io.WriteString(editorOut, `{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":`+"\n")
		_, _ = io.WriteString(editorOut, promptLine(t, 5, 200))
	}()
	sc := bufio.NewScanner(editorIn)
	got := map[float64]map[string]any{}
	for len(got) < 2 {
		done := make(chan bool, 1)
		go func() { done <- sc.Scan() }()
		select {
		case ok := <-done:
			if !ok {
				t.Fatalf("the connection ended after %v", got)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer after %v: the broken request waits forever", got)
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		id, _ := m["id"].(float64)
		e, _ := m["error"].(map[string]any)
		got[id] = e
	}
	if code, _ := got[4]["code"].(float64); code != -32700 || !strings.Contains(got[4]["message"].(string), "not valid JSON") {
		t.Errorf("answer to the broken request: %v, want a parse error saying so", got[4])
	}
	if msg, _ := got[5]["message"].(string); !strings.Contains(msg, "no session") {
		t.Errorf("answer to the next request: %v, want the agent's own", got[5])
	}
}
