package desktop

// The window's native dialogs are Wails' and stay in app.go; what is done with the answer is
// the session's. A dialog is given as a function of the folder it starts in.

// PickWorkspace asks for a folder with pick, starting at the workspace of new chats, and makes
// it the workspace of new chats; it returns "" when the user cancels.
func (d *Desktop) PickWorkspace(pick func(from string) (string, error)) (string, error) {
	dir, err := pick(d.Workspace())
	if err != nil || dir == "" {
		return "", err
	}
	return dir, d.SetWorkspace(dir)
}

// PickImages asks for image files with pick, starting at the workspace of new chats, and
// returns them base64, as the composer holds pasted ones (none when the user cancels).
func (d *Desktop) PickImages(pick func(from string) ([]string, error)) ([]string, error) {
	paths, err := pick(d.Workspace())
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	return d.ReadImages(paths)
}
