package tests

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// gaugeSays matches the context gauge's words and catches the size it counts against.
var gaugeSays = regexp.MustCompile(`^Context: \S+ of (\d+(\.\d)?K) tokens`)

// gaugeSize waits up to timeout for the context gauge to count against want ("8K"), and
// returns the size it last counted against ("" when it said nothing) and its words.
func (a *desktopApp) gaugeSize(want string, timeout time.Duration) (size, said string) {
	for deadline := time.Now().Add(timeout); size != want && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		for _, s := range a.texts(func(s string) bool { return gaugeSays.MatchString(strings.TrimSpace(s)) }) {
			said = strings.TrimSpace(s)
			size = gaugeSays.FindStringSubmatch(said)[1]
		}
	}
	return size, said
}

// namedStarting lists the accessible names of the window that begin with prefix.
func (a *desktopApp) namedStarting(prefix string) []string {
	var out []string
	a.each(func(n a11yNode) {
		if name := a.name(n); strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
	})
	return out
}

// TestDesktopTheGaugeCountsAgainstAContextCapAsSoonAsItIsSaved: after an answer with the 16K
// tokens the app gives by default, the user saves "Longest context" 8192: the model button and
// the context gauge both say 8K at once, before any other answer (the context the next
// message gets), and the button and the chat of the list are named in words said apart.
func TestDesktopTheGaugeCountsAgainstAContextCapAsSoonAsItIsSaved(t *testing.T) {
	const prompt = "Hello there"
	r := startDesktopRunWith(t, chattyModel, store.Settings{}, prompt)
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	if size, said := r.app.gaugeSize("16K", 30*time.Second); size != "16K" {
		t.Fatalf("after the answer the gauge says %q, not a count of 16K (%s)", said, r.app.screenshot("gauge-cap-before.png"))
	}
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	r.app.focusField(contextCapField)
	r.app.key("ctrl+a")
	r.app.typeText("8192")
	r.app.key("Return")
	r.app.waitNoControl(rolePushButton, "Cancel", 30*time.Second)
	// the header says it: then the gauge must say the same, without another answer
	var button []string
	for deadline := time.Now().Add(30 * time.Second); len(button) == 0 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		button = r.app.namedStarting(chattyModel.Name + " tools")
		if len(button) > 0 && !strings.Contains(button[0], "8K of 32K tokens") {
			button = nil
		}
	}
	if len(button) == 0 {
		t.Fatalf("the model button does not say the 8K saved: %q (%s)", r.app.namedStarting(chattyModel.Name), r.app.screenshot("gauge-cap-saved.png"))
	}
	if size, said := r.app.gaugeSize("8K", 20*time.Second); size != "8K" {
		t.Errorf("the model button says %q, the gauge still %q: the context saved is said at the next answer only (%s)",
			button[0], said, r.app.screenshot("gauge-cap-saved.png"))
	}
	// words said apart: no word run into the next, no space before a comma
	if want := chattyModel.Name + " tools, thinking, 8K of 32K tokens"; !strings.HasPrefix(button[0], want) {
		t.Errorf("the model button is named %q, not %q…", button[0], want)
	}
	chat := regexp.MustCompile(`^` + prompt + `(, [^,]+)+$`)
	if named := r.app.namedStarting(prompt); !containsMatch(named, chat) {
		t.Errorf("the chat of the list is named %q, not %q then its folder and time with commas (%s)",
			named, prompt, r.app.screenshot("gauge-chat-name.png"))
	}
	r.finish(t, "gauge-cap-saved.png")
}

func containsMatch(names []string, re *regexp.Regexp) bool {
	for _, n := range names {
		if re.MatchString(n) {
			return true
		}
	}
	return false
}

// figureWithUnit matches a figure and its unit in the gauge: "16K tokens", "10,153 tok/s", "57 ms".
var figureWithUnit = regexp.MustCompile(`\d(K)? (tokens|tok/s|ms|s)\b`)

// TestDesktopTheGaugeKeepsAFigureWithItsUnitInTheNarrowestWindow: in the narrowest window with
// the Preview open, the gauge's lines break between its figures, never between a number and
// its unit ("16K" / "tokens", "10,153" / "tok/s"), and none is drawn beyond its column.
func TestDesktopTheGaugeKeepsAFigureWithItsUnitInTheNarrowestWindow(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, previewShotModel, store.Settings{Think: "off"}, "Create index.html")
	r.waitLog(t, events.RunFinished, true, 60*time.Second)
	r.app.key("alt+p")
	r.app.waitControl(rolePushButton, "Reload the preview", 30*time.Second)
	if _, said := r.app.gaugeSize("16K", 30*time.Second); said == "" {
		t.Fatalf("the gauge says nothing after the answer (%s)", r.app.screenshot("gauge-narrow.png"))
	}
	if out, err := r.app.xdotool("windowmove", "--sync", r.app.window, "0", "0"); err != nil {
		t.Fatalf("move the window: %v (%s)", err, out)
	}
	if out, err := r.app.xdotool("windowsize", "--sync", r.app.window, "640", "700"); err != nil {
		t.Fatalf("resize the window: %v (%s)", err, out)
	}
	root, _ := r.app.appRoot()
	send := r.app.waitNode(rolePushButton, "Send")
	var broken []string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		_, _, ww, _ := r.app.extents(r.app.children(root)[0])
		broken = nil
		r.app.each(func(n a11yNode) {
			if text := r.app.text(n); gaugeSays.MatchString(text) {
				broken = append(broken, r.app.figuresBroken(n, text, send)...)
			}
		})
		if ww < 900 && len(broken) == 0 {
			t.Logf("in a window %d px wide: %s", ww, r.app.screenshot("gauge-narrow.png"))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("in a window %d px wide the gauge breaks or spills %q (%s)", ww, broken, r.app.screenshot("gauge-narrow.png"))
		}
	}
	r.finish(t, "gauge-narrow-end.png")
}

// figuresBroken lists the figures of text, n's, whose number and unit are not on one line, or
// that are drawn beyond the column of the message box (right of its Send button, less the
// column's padding), where the pane beside would hide them.
func (a *desktopApp) figuresBroken(n a11yNode, text string, send a11yNode) []string {
	a.tb.Helper()
	sx, _, sw, _ := a.extents(send)
	const padding = 16
	var out []string
	for _, m := range figureWithUnit.FindAllStringIndex(text, -1) {
		// the match is ASCII: the number's last character, its K, a space, the unit
		figure, at := text[m[0]:m[1]], len([]rune(text[:m[0]]))
		number, unit := at+strings.IndexByte(figure, ' ')-1, at+len(figure)-1
		_, y0, _, _ := a.charExtents(n, number)
		ux, y1, uw, _ := a.charExtents(n, unit)
		switch {
		case y0 != y1:
			out = append(out, figure+" (broken)")
		case ux+uw > sx+sw+padding:
			out = append(out, figure+" (outside)")
		}
	}
	return out
}

// charExtents is where the character at offset i of n's text is drawn, in the window's coordinates.
func (a *desktopApp) charExtents(n a11yNode, i int) (x, y, w, h int32) {
	a.tb.Helper()
	if err := a.a11yBus().Object(n.Dest, n.Path).Call(atspiText+".GetCharacterExtents", 0, int32(i), uint32(1)).Store(&x, &y, &w, &h); err != nil {
		a.tb.Fatalf("the character extents of %s: %v", n.Path, err)
	}
	return x, y, w, h
}
