// Command gensettings writes the window's TypeScript type of the settings
// (frontend/src/generated/settings.ts) from desktop.Settings. It runs from internal/desktop
// by `go generate`.
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
