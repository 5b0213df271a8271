package tests

import (
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// TestDesktopTheRunStateStaysReadableInANarrowWindow: in a narrow window (640 px asked, the
// window's least width given) the header's run state ("Waiting for your approval") is shown
// whole, wrapped if it must be, never cut to "Wai…": the characters drawn there are as wide in
// all as in a wide window (a cut draws fewer), and lie inside the window.
func TestDesktopTheRunStateStaysReadableInANarrowWindow(t *testing.T) {
	layoutCanMatter(t)
	const state = "Waiting for your approval"
	r := startDesktopRunWith(t, writerModel, store.Settings{ToolApproval: map[string]string{"write_file": "ask"}}, "Write hello.txt with a greeting")
	r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
	if r.app.waitTexts(func(s string) bool { return s == state }, 30*time.Second) == nil {
		t.Fatalf("the header does not say %q (%s)", state, r.app.screenshot("narrow-run-state.png"))
	}
	wide, _, _ := r.app.glyphs(r.app.lastTextWith(state))
	if out, err := r.app.xdotool("windowmove", "--sync", r.app.window, "0", "0"); err != nil {
		t.Fatalf("move the window: %v (%s)", err, out)
	}
	if out, err := r.app.xdotool("windowsize", "--sync", r.app.window, "640", "700"); err != nil {
		t.Fatalf("resize the window: %v (%s)", err, out)
	}
	r.waitWholeInANarrowWindow(t, "the run state", "narrow-run-state.png", wide, func(wx, ww int32) (narrow, left, right, lo, hi int32) {
		narrow, left, right = r.app.glyphs(r.app.lastTextWith(state))
		return narrow, left, right, wx, wx + ww
	})
	r.app.key("alt+a")
	r.waitResumedFinished(t, 60*time.Second)
}

// glyphs measures the characters of n's text but its spaces (where a line may break) as drawn
// in the window: their widths added up, and the leftmost and rightmost x they reach.
func (a *desktopApp) glyphs(n a11yNode) (width, left, right int32) {
	a.tb.Helper()
	left = 1 << 30
	for i, c := range []rune(a.text(n)) {
		if c == ' ' {
			continue
		}
		var x, y, w, h int32
		if err := a.a11yBus().Object(n.Dest, n.Path).Call(atspiText+".GetCharacterExtents", 0, int32(i), uint32(1)).Store(&x, &y, &w, &h); err != nil {
			a.tb.Fatalf("the character extents of %s: %v", n.Path, err)
		}
		width, left, right = width+w, min(left, x), max(right, x+w)
	}
	return width, left, right
}

// waitWholeInANarrowWindow waits until the window, resized to less than 900 px, draws what
// whole: measure, given the window's x and width, reads how many px of characters it draws
// (at least 98% of wide, those of a wide window) and where, within lo..hi. It fails t when
// that does not come within 20 s, with a screenshot (shot), which it also keeps on success.
func (r *desktopRun) waitWholeInANarrowWindow(t *testing.T, what, shot string, wide int32, measure func(wx, ww int32) (narrow, left, right, lo, hi int32)) {
	t.Helper()
	root, _ := r.app.appRoot()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		wx, _, ww, _ := r.app.extents(r.app.children(root)[0])
		narrow, left, right, lo, hi := measure(wx, ww)
		if ww < 900 && narrow*100 >= wide*98 && left >= lo && right <= hi {
			t.Logf("%s in a window %d px wide: %s", what, ww, r.app.screenshot(shot))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("in a window %d px wide %s draws %d px of characters (%d in a wide one) within x %d..%d of %d..%d: cut (%s)",
				ww, what, narrow, wide, left, right, lo, hi, r.app.screenshot(shot))
		}
	}
}
