// Command gensettings writes the window's TypeScript types of the settings
// (frontend/src/generated/settings.ts) from store.Settings and the facts desktop.Config shows
// beside them (desktop.InEffect, desktop.SettingDefaults). It runs from internal/desktop by
// `go generate`.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"prototyper/internal/desktop"
)

func main() {
	out, err := desktop.SettingsTS(".")
	if err == nil {
		file := filepath.Join("..", "..", filepath.FromSlash(desktop.SettingsTSFile))
		err = os.WriteFile(file, out, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensettings:", err)
		os.Exit(1)
	}
}
