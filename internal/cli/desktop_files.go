package cli

import (
	"fmt"
	"os/exec"
	"path/filepath"

	"prototyper/tools"
)

// opener is the program that opens a file or a folder with the user's default app.
var opener = "xdg-open"

// OpenPath opens a path the chat's file tools wrote with the system's default app, or, with
// inFolder, the folder that holds it: in the folder the chat's runs wrote it in (a chat's
// folder can change between runs), else in the chat's folder. Nothing outside that folder is
// opened.
func (d *Desktop) OpenPath(chatID, rel string, inFolder bool) error {
	dir, err := d.agent.PathFolder(chatID, rel)
	if err != nil {
		return err
	}
	dir = firstNonEmpty(dir, d.Workspace())
	ws, err := tools.OpenWorkspace(dir, tools.WorkspaceOptions{})
	if err != nil {
		return err
	}
	defer ws.Close()
	target, err := ws.Resolve(rel)
	if err != nil {
		return err
	}
	if inFolder {
		target = filepath.Dir(target)
	}
	cmd := exec.Command(opener, target)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot open %s: %s is not available (install xdg-utils)", rel, opener)
	}
	go cmd.Wait()
	return nil
}
