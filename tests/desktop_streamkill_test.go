package tests

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// lastPart is the number of the last whole "partN " of paragraphModel's answer in s (-1: none).
func lastPart(s string) int {
	last := -1
	for _, m := range regexp.MustCompile(`part(\d+) `).FindAllStringSubmatch(s, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			last = max(last, n)
		}
	}
	return last
}

// TestDesktopAnAnswerOnScreenBeforeAKillIsAllThereAfterIt: an answer streams (a piece every
// 60 ms, saved to the database once a second); as soon as the window shows its 40th piece the
// app is killed with SIGKILL; opened again, the window shows every piece it showed before.
func TestDesktopAnAnswerOnScreenBeforeAKillIsAllThereAfterIt(t *testing.T) {
	slow := pacedProxy(t, ollamatest.Get(t).URL(), 1000, 60*time.Millisecond)
	r := startDesktopRunWith(t, paragraphModel, store.Settings{Think: "on"}, "Write a long answer", withArgs("--ollama", slow))
	r.waitLog(t, events.TextDelta, true, 60*time.Second)
	shown := r.app.waitTexts(func(s string) bool { return lastPart(s) >= 40 }, 60*time.Second)
	r.kill(t)
	if len(shown) == 0 {
		t.Fatalf("the answer never showed its 40th piece")
	}
	seen := -1
	for _, s := range shown {
		seen = max(seen, lastPart(s))
	}
	t.Logf("the window showed up to part%d when the app was killed", seen)
	r.relaunch(t, paragraphModel, "bridge-answer-killed")
	want := fmt.Sprintf("part%d ", seen)
	if after := r.app.waitTexts(func(s string) bool { return strings.Contains(s, want) }, 30*time.Second); len(after) == 0 {
		t.Errorf("the window showed %q before the kill and not after it (%s)", want, r.app.screenshot("answer-after-kill.png"))
	}
	_, db := r.finish(t, "answer-after-kill.png")
	msgs, err := db.Messages(theOneChat(t, db).ID)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("%d messages (%v), want the prompt and its answer", len(msgs), err)
	}
	if kept := lastPart(msgs[1].Content); kept < seen {
		t.Errorf("the answer kept up to part%d, the window showed up to part%d", kept, seen)
	}
}
