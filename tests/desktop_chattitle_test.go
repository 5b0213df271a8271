package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// searchHits lists, as Ctrl+K shows them now, the chats found whose names start with title.
func (r *desktopRun) searchHits(title string) (hits []string) {
	r.app.each(func(n a11yNode) {
		if name := r.app.name(n); strings.HasPrefix(name, title) && r.app.role(n) == roleListItem {
			hits = append(hits, name)
		}
	})
	return hits
}

// TestDesktopAChatsTitleFollowsItsEditedFirstMessage: a chat is titled after its first
// message; that message edited and resent, the chat list and Ctrl+K name the chat after the
// new text, and the earlier version shown again brings its title back.
func TestDesktopAChatsTitleFollowsItsEditedFirstMessage(t *testing.T) {
	const first, edited = "Write a todo page", "Write a weather page"
	r := startDesktopRunWith(t, chattyModel, store.Settings{}, first)
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	r.app.waitControl(rolePushButton, "Rename "+first, 30*time.Second)

	r.app.key("Up")
	r.app.waitFocus(roleEntry, "Edit the message", 30*time.Second)
	r.app.key("ctrl+a")
	r.app.typeText(edited)
	r.app.key("Return")
	r.waitLogN(t, events.RunFinished, 2, true, 60*time.Second)
	r.app.waitControl(rolePushButton, "Rename "+edited, 30*time.Second)
	r.app.waitNoControl(rolePushButton, "Rename "+first, 20*time.Second)

	r.openField("ctrl+k")
	r.app.typeText("weather")
	var hits []string
	for deadline := time.Now().Add(20 * time.Second); len(hits) == 0 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		hits = r.searchHits(edited)
	}
	if len(hits) == 0 {
		t.Errorf("Ctrl+K does not find the chat under its new title %q (%s)", edited, r.app.screenshot("title-search.png"))
	}
	r.app.key("Escape")

	r.app.press("Earlier version")
	r.app.waitControl(rolePushButton, "Rename "+first, 30*time.Second)
	r.finish(t, "title-earlier-version.png")
}
