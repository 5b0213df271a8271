package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/store"
)

// TestDesktopCtrlKWithNothingTypedListsTheNewestChats: the search opened with nothing typed
// lists the newest chats but the one open, as a quick-open list does; ↓ and Enter open one.
func TestDesktopCtrlKWithNothingTypedListsTheNewestChats(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "", withSeed(func(db *store.DB, ws string) {
		seedChats(t, db, ws, 3, 0) // Chat 00003 the newest, open at start; Chat 00001 the oldest
	}))
	r.openField("ctrl+k")
	listed := func() (titles []string) {
		r.app.each(func(n a11yNode) {
			if name := r.app.name(n); strings.HasPrefix(name, "Chat 0000") && r.app.role(n) == roleListItem {
				titles = append(titles, name)
			}
		})
		return titles
	}
	var titles []string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if titles = listed(); len(titles) >= 2 || time.Now().After(deadline) {
			break
		}
	}
	shot := r.app.screenshot("search-recent.png")
	if len(titles) < 2 || !strings.HasPrefix(titles[0], "Chat 00002") || !strings.HasPrefix(titles[1], "Chat 00001") {
		t.Fatalf("Ctrl+K with nothing typed lists %q, want Chat 00002 then Chat 00001 (%s)", titles, shot)
	}
	r.app.key("Down")
	r.app.key("Return")
	if r.app.waitTexts(func(s string) bool { return s == oldestChatWords }, 30*time.Second) == nil {
		t.Fatalf("↓ and Enter in the recent chats did not open Chat 00001 (%s)", r.app.screenshot("search-recent-opened.png"))
	}
}
