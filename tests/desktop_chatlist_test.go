package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"prototyper/store"
)

// oldestChatWords are the words of the one message of the oldest chat seedChats makes.
const oldestChatWords = "The oldest chat's first words"

// seedChats makes n chats of the workspace, named "Chat 00001" (the oldest, with one message
// saying oldestChatWords) to "Chat n", and, when messages > 0, a newest chat "Long chat" of that
// many messages.
func seedChats(tb testing.TB, db *store.DB, workspace string, n, messages int) {
	tb.Helper()
	for i := 1; i <= n; i++ {
		c, err := db.CreateChat(store.Chat{Title: fmt.Sprintf("Chat %05d", i), Workspace: workspace})
		if err != nil {
			tb.Fatal(err)
		}
		if i == 1 { // before the others, which would be older otherwise
			if _, err := db.AppendMessage(c.ID, store.Message{Role: store.RoleUser, Content: oldestChatWords, Complete: true}); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if messages == 0 {
		return
	}
	c, err := db.CreateChat(store.Chat{Title: "Long chat", Workspace: workspace})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range messages {
		role, text := store.RoleUser, fmt.Sprintf("Question %d: what does the page do next?", i)
		if i%2 == 1 {
			role, text = store.RoleAssistant, fmt.Sprintf("Answer %d: ", i)+strings.Repeat("The page shows the list, then the form. ", 12)
		}
		if _, err := db.AppendMessage(c.ID, store.Message{Role: role, Content: text, Complete: true}); err != nil {
			tb.Fatal(err)
		}
	}
}

// chatButtons lists the accessible names of the chat list's chats now in the window.
func (a *desktopApp) chatButtons() []string {
	var out []string
	a.each(func(n a11yNode) {
		if name := a.name(n); strings.HasPrefix(name, "Chat ") && a.role(n) == rolePushButton {
			out = append(out, name)
		}
	})
	return out
}

// mostRowsInView bounds the chats a list renders: those a tall window shows, and a few more
// on each side; far fewer than the chats there are.
const mostRowsInView = 200

// TestDesktopTheTenThousandthChatIsReachableByKeyboardAndOpens: with 10,000 chats the list
// renders only the rows in view (the accessibility tree holds a screenful of chats, not ten
// thousand), and still every chat is reachable: from the first chat, End goes to the last —
// the oldest — which Enter opens, its message shown.
func TestDesktopTheTenThousandthChatIsReachableByKeyboardAndOpens(t *testing.T) {
	layoutCanMatter(t)
	const chats = 10_000
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "",
		withSeed(func(db *store.DB, ws string) { seedChats(t, db, ws, chats, 0) }))
	r.showChatList() // a narrow window starts with it hidden
	newest := fmt.Sprintf("Chat %05d", chats)
	var shown []string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if shown = r.app.chatButtons(); len(shown) > 0 && strings.HasPrefix(shown[0], newest) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the chat list does not show %s first; it shows %d chats: %.200v", newest, len(shown), shown)
		}
	}
	if len(shown) > mostRowsInView {
		t.Fatalf("the chat list holds %d of its %d chats in the page, want only those in view (at most %d) (%s)",
			len(shown), chats, mostRowsInView, r.app.screenshot("chatlist-all-rendered.png"))
	}
	r.app.focusNamed(rolePushButton, newest)
	r.app.waitFocus(rolePushButton, newest, 20*time.Second)
	r.app.key("End")
	r.app.waitFocus(rolePushButton, "Chat 00001", 30*time.Second)
	shot := r.app.screenshot("chatlist-last-chat.png")
	if n := len(r.app.chatButtons()); n > mostRowsInView {
		t.Fatalf("at the end of the list, %d chats are in the page, want at most %d (%s)", n, mostRowsInView, shot)
	}
	r.app.key("Return")
	r.app.waitTexts(func(s string) bool { return strings.Contains(s, oldestChatWords) }, 30*time.Second)
}

// focusNamed gives the keyboard focus to the one control of role whose accessible name begins
// with prefix, as a screen reader's user does.
func (a *desktopApp) focusNamed(role a11yRole, prefix string) {
	a.tb.Helper()
	var found []a11yNode
	a.each(func(n a11yNode) {
		if strings.HasPrefix(a.name(n), prefix) && a.role(n) == role {
			found = append(found, n)
		}
	})
	if len(found) != 1 {
		a.tb.Fatalf("%d controls of role %v named %q…, want one", len(found), role, prefix)
	}
	var ok bool
	if err := a.a11yBus().Object(found[0].Dest, found[0].Path).Call(atspiComponent+".GrabFocus", 0).Store(&ok); err != nil || !ok {
		a.tb.Fatalf("focus %q: %v (done: %v)", prefix, err, ok)
	}
}

// showChatList shows the list of chats when the window started with it hidden (a narrow
// window does, until the user chooses): Ctrl+B, its button's shortcut.
func (r *desktopRun) showChatList() {
	r.app.tb.Helper()
	if len(r.app.controls(rolePushButton, "+ New chat")) == 0 {
		r.app.key("ctrl+b")
		r.app.waitControl(rolePushButton, "+ New chat", 20*time.Second)
	}
}

// TestDesktopTheListOfChatsHidesWithCtrlBAndStaysSoAfterARestart: a narrow window starts
// with the list of chats hidden, a wide one with it shown; Ctrl+B (or the header's button)
// shows or hides it, and the choice is kept when the app starts again.
func TestDesktopTheListOfChatsHidesWithCtrlBAndStaysSoAfterARestart(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
	shown := func() bool { return len(r.app.controls(rolePushButton, "+ New chat")) == 1 }
	narrow := desktopLayout(t).name == "large" // 900 px at 1.5 times: 600 px of page
	// the large layout's window is resized as it maps: the list follows the width it settles at
	for deadline := time.Now().Add(20 * time.Second); shown() == narrow && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
	}
	if shown() == narrow {
		t.Fatalf("the list of chats is shown: %v in the %s layout (%s)", shown(), desktopLayout(t).name, r.app.screenshot("sidebar-at-start.png"))
	}
	was := shown()
	r.app.key("ctrl+b")
	if was {
		r.app.waitNoControl(rolePushButton, "+ New chat", 20*time.Second)
	} else {
		r.app.waitControl(rolePushButton, "+ New chat", 20*time.Second)
	}
	r.app.screenshot("sidebar-toggled.png")
	r.reopen(t, writerModel, "bridge-sidebar")
	settle()
	if shown() == was {
		t.Errorf("after a restart the list of chats is shown: %v, want it as chosen, %v (%s)", shown(), !was, r.app.screenshot("sidebar-restarted.png"))
	}
	r.app.press("List of chats") // the header's button does the same
	if was {
		r.app.waitControl(rolePushButton, "+ New chat", 20*time.Second)
	} else {
		r.app.waitNoControl(rolePushButton, "+ New chat", 20*time.Second)
	}
}
