package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// TestDesktopAnApprovalCardsTitleStaysWholeInANarrowWindowWithThePreview: in the narrowest
// window (640 px asked, the window's least width given) with the Preview pane open, the card
// of a write waiting for approval says its title whole ("Create index.html", not "Create
// inde…"): its characters are as wide in all as in a wide window and lie inside the card.
func TestDesktopAnApprovalCardsTitleStaysWholeInANarrowWindowWithThePreview(t *testing.T) {
	layoutCanMatter(t)
	// the card is named by its title, "?" ending the title of a call that waits for an answer
	const title = "Create index.html?"
	r := startDesktopRunWith(t, previewShotModel, store.Settings{Think: "off", ToolApproval: map[string]string{"write_file": "ask"}}, "Create index.html")
	r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
	r.app.key("alt+p")
	r.app.waitControl(rolePushButton, "Reload the preview", 30*time.Second)
	card := r.app.waitNamedNode(title, 30*time.Second)
	wide, _, _ := r.app.leadingGlyphs(card, title)
	if out, err := r.app.xdotool("windowmove", "--sync", r.app.window, "0", "0"); err != nil {
		t.Fatalf("move the window: %v (%s)", err, out)
	}
	if out, err := r.app.xdotool("windowsize", "--sync", r.app.window, "640", "700"); err != nil {
		t.Fatalf("resize the window: %v (%s)", err, out)
	}
	r.waitWholeInANarrowWindow(t, "the card's title, with the Preview open,", "narrow-card-title.png", wide, func(_, _ int32) (narrow, left, right, lo, hi int32) {
		cx, _, cw, _ := r.app.extents(card)
		narrow, left, right = r.app.leadingGlyphs(card, title)
		return narrow, left, right, cx, cx + cw
	})
	r.app.key("alt+a")
	r.waitResumedFinished(t, 60*time.Second)
}

// leadingGlyphs measures, as glyphs does, the characters with which n's text begins that spell
// words (its text read without spaces and line breaks, which it may break at).
func (a *desktopApp) leadingGlyphs(n a11yNode, words string) (width, left, right int32) {
	a.tb.Helper()
	want := []rune(strings.ReplaceAll(words, " ", ""))
	left = 1 << 30
	got := 0
	for i, c := range []rune(a.text(n)) {
		if got == len(want) {
			break
		}
		if c == ' ' || c == '\n' {
			continue
		}
		if c != want[got] {
			a.tb.Fatalf("the text of %s begins %q, not with %q", n.Path, a.text(n), words)
		}
		got++
		var x, y, w, h int32
		if err := a.a11yBus().Object(n.Dest, n.Path).Call(atspiText+".GetCharacterExtents", 0, int32(i), uint32(1)).Store(&x, &y, &w, &h); err != nil {
			a.tb.Fatalf("the character extents of %s: %v", n.Path, err)
		}
		width, left, right = width+w, min(left, x), max(right, x+w)
	}
	return width, left, right
}

// waitNamedNode waits for the one object of the window named name, whatever its role.
func (a *desktopApp) waitNamedNode(name string, timeout time.Duration) a11yNode {
	a.tb.Helper()
	for deadline := time.Now().Add(timeout); ; time.Sleep(200 * time.Millisecond) {
		var found []a11yNode
		a.each(func(n a11yNode) {
			if a.name(n) == name {
				found = append(found, n)
			}
		})
		if len(found) == 1 {
			return found[0]
		}
		if time.Now().After(deadline) {
			a.tb.Fatalf("the window has %d objects named %q after %s, want one", len(found), name, timeout)
		}
	}
}
