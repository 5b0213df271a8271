package tests

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"prototyper/store"
)

// mostMessagesRendered bounds the messages a long chat's transcript renders: its newest 150
// entries and those of a few screens around the view.
const mostMessagesRendered = 250

// seededMessage finds the number of a message of seedChats' long chat in a text of the window.
var seededMessage = regexp.MustCompile(`^(?:Question|Answer) (\d+):`)

// renderedMessages lists, now, the numbers of the long chat's messages the window holds.
func (a *desktopApp) renderedMessages() map[string]bool {
	out := map[string]bool{}
	a.each(func(n a11yNode) {
		if m := seededMessage.FindStringSubmatch(a.text(n)); m != nil {
			out[m[1]] = true
		}
	})
	return out
}

// TestDesktopAChatOfFiveThousandMessagesOpensAndHomeReachesItsFirst: a chat of 5,000 messages
// opens showing its newest answer with only a bounded part of it in the page (the
// accessibility tree holds a few hundred messages at most, not five thousand); from a control
// of the newest answer, Home in the transcript brings the first message into the window, on
// screen, still with a bounded number rendered; End goes back to the newest.
func TestDesktopAChatOfFiveThousandMessagesOpensAndHomeReachesItsFirst(t *testing.T) {
	layoutCanMatter(t)
	const messages = 5000
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "",
		withSeed(func(db *store.DB, ws string) { seedChats(t, db, ws, 1, messages) }))
	r.showChatList() // a narrow window starts with it hidden
	r.app.focusNamed(rolePushButton, "Long chat")
	opened := time.Now()
	r.app.key("Return")
	newest := fmt.Sprintf("Answer %d:", messages-1)
	if r.app.waitTexts(func(s string) bool { return strings.HasPrefix(s, newest) }, 60*time.Second) == nil {
		t.Fatalf("the chat of %d messages does not show its newest answer (%s)", messages, r.app.screenshot("transcript-not-opened.png"))
	}
	t.Logf("a chat of %d messages opened, its newest answer in the window, in %v", messages, time.Since(opened).Round(time.Millisecond))
	if n := len(r.app.renderedMessages()); n > mostMessagesRendered {
		t.Fatalf("the transcript holds %d of the chat's %d messages in the page, want at most %d (%s)",
			n, messages, mostMessagesRendered, r.app.screenshot("transcript-all-rendered.png"))
	}

	// The keys of the transcript, from a control of its newest answer.
	var copy a11yNode
	r.app.each(func(n a11yNode) {
		if r.app.role(n) == rolePushButton && r.app.name(n) == "Copy as Markdown" {
			copy = n
		}
	})
	if copy.Path == "" {
		t.Fatal("the newest answer has no Copy as Markdown button to take the focus")
	}
	r.app.grabFocus(copy)
	r.app.key("Home")
	first := "Question 0: what does the page do next?"
	if r.app.waitTexts(func(s string) bool { return s == first }, 30*time.Second) == nil {
		t.Fatalf("Home in the transcript does not bring its first message into the page (%s)", r.app.screenshot("transcript-home.png"))
	}
	shot := r.app.screenshot("transcript-home.png")
	root, _ := r.app.appRoot()
	frame := r.app.children(root)[0]
	_, top, _, height := r.app.extents(frame)
	_, y, _, h := r.app.extents(r.app.lastTextWith(first))
	if h <= 0 || y < top || y+h > top+height {
		t.Fatalf("after Home the first message is at y=%d (height %d), outside the window's %d..%d (%s)", y, h, top, top+height, shot)
	}
	if n := len(r.app.renderedMessages()); n > mostMessagesRendered {
		t.Fatalf("at the top the transcript holds %d messages in the page, want at most %d (%s)", n, mostMessagesRendered, shot)
	}
	if r.app.renderedMessages()[fmt.Sprint(messages/2)] {
		t.Fatalf("at the top the transcript holds message %d, half-way down: it renders what is not in view (%s)", messages/2, shot)
	}
	r.app.key("End")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		_, y, _, h := r.app.extents(r.app.lastTextWith(newest))
		if h > 0 && y >= top && y < top+height {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("End does not bring the newest answer back into view (%s)", r.app.screenshot("transcript-end.png"))
		}
	}
}

// TestDesktopASearchHitFarUpALongChatOpensItInView: a word said in the tenth message of a
// chat of 5,000, found with Ctrl+K, opens the chat with that message in the window, on screen,
// though it lies thousands of messages above the newest.
func TestDesktopASearchHitFarUpALongChatOpensItInView(t *testing.T) {
	layoutCanMatter(t)
	const messages, found = 5000, "Question 10: where is the quokka garden?"
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "",
		withSeed(func(db *store.DB, ws string) {
			seedChats(t, db, ws, 1, messages)
			chats, err := db.ListChats()
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range chats {
				if c.Title != "Long chat" {
					continue
				}
				msgs, err := db.Messages(c.ID)
				if err != nil {
					t.Fatal(err)
				}
				m := msgs[10]
				m.Content = found
				if err := db.UpdateMessage(c.ID, m); err != nil {
					t.Fatal(err)
				}
			}
		}))
	r.openField("ctrl+k")
	r.app.typeText("quokka")
	// the hit, an option whose name holds the message's words
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		hit := false
		r.app.each(func(n a11yNode) { hit = hit || strings.Contains(r.app.name(n)+r.app.text(n), "garden") })
		if hit {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the search does not find the tenth message (%s)", r.app.screenshot("transcript-search.png"))
		}
	}
	r.app.key("Return")
	if r.app.waitTexts(func(s string) bool { return s == found }, 30*time.Second) == nil {
		t.Fatalf("the chat opened from the search does not hold the message found (%s)", r.app.screenshot("transcript-found.png"))
	}
	root, _ := r.app.appRoot()
	_, top, _, height := r.app.extents(r.app.children(root)[0])
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		_, y, _, h := r.app.extents(r.app.lastTextWith(found))
		if h > 0 && y >= top && y+h <= top+height {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the message found is at y=%d (height %d), outside the window's %d..%d (%s)",
				y, h, top, top+height, r.app.screenshot("transcript-found.png"))
		}
	}
}
