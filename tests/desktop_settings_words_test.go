package tests

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// TestDesktopTheSettingsAskOnlyWhatTheServerUsesAndSayToolsInWords: for a local Ollama the
// settings ask for no API key variable (it takes none); each tool of the approval list is said
// in words, its name beside; the model menu writes a model's context as every count of tokens is
// written (16K tokens), never "16K ctx"; it opens on the model in use, and the model button
// says its badges apart.
func TestDesktopTheSettingsAskOnlyWhatTheServerUsesAndSayToolsInWords(t *testing.T) {
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	r.app.waitControl(roleComboBox, "Approval for write_file", 10*time.Second)
	shot := r.app.screenshot("settings-local-ollama.png")
	r.app.each(func(n a11yNode) {
		if strings.HasPrefix(r.app.name(n), "API key variable") {
			t.Errorf("the settings of a local Ollama ask for an API key variable (%s)", shot)
		}
	})
	for _, words := range []string{"Create or replace a file", "Edit a file", "Run a command"} {
		if !r.app.says(words) {
			t.Errorf("the tool approval list does not say %q (%s)", words, shot)
		}
	}
	r.app.key("Escape")
	r.app.waitNoControl(rolePushButton, "Cancel", 30*time.Second)

	r.openField("ctrl+m")
	tokens := regexp.MustCompile(`^\d+(\.\d)?K tokens$`)
	// a line of its own in the menu's text (its badges are read with their neighbours)
	said := r.app.waitTexts(func(s string) bool {
		return slices.ContainsFunc(strings.Split(s, "\n"), func(l string) bool { return tokens.MatchString(strings.TrimSpace(l)) })
	}, 20*time.Second)
	shot = r.app.screenshot("model-menu-context.png")
	if said == nil {
		t.Errorf("the model menu writes no model's context as \"NK tokens\" (%s)", shot)
	}
	if ctx := r.app.textsWith(" ctx"); len(ctx) > 0 {
		t.Errorf("the model menu still writes a context as \"ctx\" (%s)", shot)
	}
	r.app.key("Escape")
	r.waitComposerFocus()
	// the menu opens on the model in use: Enter keeps it
	r.openField("ctrl+m")
	r.app.key("Return")
	r.waitComposerFocus()
	// a screen reader hears the model's badges apart: "e2e-writer tools, …, 16K of 32K tokens"
	apart, heard := regexp.MustCompile(`\w ?, \d+(\.\d)?K( of \d+(\.\d)?K)? tokens`), []string{}
	r.app.each(func(n a11yNode) {
		if name := r.app.name(n); strings.Contains(name, "K tokens") {
			heard = append(heard, name)
		}
	})
	if len(heard) == 0 || !apart.MatchString(heard[0]) {
		t.Errorf("the model button's badges run together for a screen reader: %q", heard)
	}
	if len(heard) == 0 || !strings.HasPrefix(heard[0], writerModel.Name+" ") {
		t.Errorf("Enter in the model menu just opened changed the model: the button says %q", heard)
	}
}

// TestDesktopTheHeaderSaysTheContextTheGaugeCountsAgainst: after an answer, the model button
// says the context the app gives the model, the one the context gauge counts against ("of
// 16K"), not another number (the model's own 32K is heard beside it where it is more).
func TestDesktopTheHeaderSaysTheContextTheGaugeCountsAgainst(t *testing.T) {
	r := startDesktopRunWith(t, chattyModel, store.Settings{}, "Say something")
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	gaugeWords := regexp.MustCompile(`^Context: \S+ of (\d+(\.\d)?K) tokens`)
	gauge := r.app.waitTexts(func(s string) bool { return gaugeWords.MatchString(strings.TrimSpace(s)) }, 30*time.Second)
	if gauge == nil {
		t.Fatalf("the context gauge says nothing after the answer (%s)", r.app.screenshot("header-context.png"))
	}
	size := gaugeWords.FindStringSubmatch(strings.TrimSpace(gauge[0]))[1]
	badge := regexp.MustCompile(`, (\d+(\.\d)?K)( of (\d+(\.\d)?K))? tokens`)
	var button string
	r.app.each(func(n a11yNode) {
		if name := r.app.name(n); strings.HasPrefix(name, chattyModel.Name+" ") && badge.MatchString(name) {
			button = name
		}
	})
	if button == "" {
		t.Fatalf("the model button says no context (%s)", r.app.screenshot("header-context.png"))
	}
	if m := badge.FindStringSubmatch(button); m[1] != size {
		t.Errorf("the model button says %q, the gauge counts against %s tokens (%q): one thing, two numbers (%s)",
			m[0], size, gauge[0], r.app.screenshot("header-context.png"))
	}
	r.finish(t, "header-context.png")
}
