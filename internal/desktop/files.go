package desktop

import (
	"fmt"
	"os/exec"
	"path/filepath"

	"prototyper/internal/cli"
	"prototyper/tools"
)

// opener is the program that opens a file or a folder with the user's default app.
var opener = "xdg-open"

// OpenPath opens a path the chat's file tools wrote with the system's default app, or, with
// inFolder, the folder that holds it: in the folder the chat's newest run that touched it
// wrote it in (a chat's folder can change between runs), else in the chat's folder. Nothing
// outside that folder is opened.
func (d *Desktop) OpenPath(chatID, rel string, inFolder bool) error {
	return d.OpenChangedPath(chatID, "", rel, inFolder)
}

// OpenChangedPath is [Desktop.OpenPath] for one file of the chat's review, which names the
// folder a run changed it in: two files of one name in two of the chat's folders each open
// their own. A folder in which the chat changed no such file is refused.
func (d *Desktop) OpenChangedPath(chatID, workspace, rel string, inFolder bool) error {
	dir, err := d.agent.PathFolder(chatID, workspace, rel)
	if err != nil {
		return err
	}
	return openIn(cli.FirstNonBlank(dir, d.Workspace()), rel, inFolder)
}

// OpenCallPath is [Desktop.OpenPath] for the path of one tool call's card: it opens it in the
// folder that call ran in (its record's, the one its run's change keeps), also when a later
// run of a chat that moved wrote the same name in another folder.
func (d *Desktop) OpenCallPath(chatID, callID, rel string, inFolder bool) error {
	rec, err := d.db.ToolCall(chatID, callID)
	if err != nil {
		return err
	}
	if rec.Workspace == "" { // recorded before calls kept their folder
		return d.OpenPath(chatID, rel, inFolder)
	}
	return openIn(rec.Workspace, rel, inFolder)
}

// openIn opens rel, a path inside the folder dir, or with inFolder the folder that holds it.
func openIn(dir, rel string, inFolder bool) error {
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
