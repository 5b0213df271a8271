package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"prototyper/tools"
)

// TestEveryToolTheSettingsListIsSaidInWords: each tool the settings' approval list holds (the
// workspace's own) has its words in the window's one table of them (toolTitle.ts, actions),
// so that no tool is shown by its function name alone.
func TestEveryToolTheSettingsListIsSaidInWords(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(moduleRoot(t), "frontend", "src", "components", "toolTitle.ts"))
	if err != nil {
		t.Fatal(err)
	}
	table := regexp.MustCompile(`(?s)const actions: Record<string, string> = \{(.*?)\n\}`).FindSubmatch(src)
	if table == nil {
		t.Fatal("toolTitle.ts holds no table of the tools' words (const actions)")
	}
	said := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s*([a-z_]+): '`).FindAllSubmatch(table[1], -1) {
		said[string(m[1])] = true
	}
	for _, d := range tools.WorkspaceDefinitions() {
		if !said[d.Name] {
			t.Errorf("the settings list %s, which toolTitle.ts does not say in words", d.Name)
		}
	}
}
