package desktop

import (
	"path/filepath"

	"prototyper/store"
	"prototyper/tools/mcptools"
)

// WorkspaceServersToAsk is the server file of the folder dir ("" for the folder of new
// chats) when it has servers of its own that the user has not answered about as the file is
// now: what the window asks the user to allow. It is nil when there is nothing to ask: no
// such file, the file allowed, or refused as it is (a changed file is asked about again);
// again asks about a refused file too (the user reviews it from the settings).
func (d *Desktop) WorkspaceServersToAsk(dir string, again bool) (*mcptools.WorkspaceServers, error) {
	if dir == "" {
		dir = d.Workspace()
	}
	if dir == "" {
		return nil, nil
	}
	servers, err := d.mcp.NotAllowed(dir)
	if err != nil || servers == nil {
		return nil, nil // an unreadable file is the settings' to show, and runs nothing
	}
	answer, err := d.db.WorkspaceTrust(servers.Workspace)
	if err != nil {
		return nil, err
	}
	if answer.Hash == servers.Hash && !again {
		return nil, nil
	}
	return servers, nil
}

// AllowWorkspaceServers records that the user allows the server file of the folder dir whose
// bytes hash to hash (what the window showed), and starts its servers. A file that changed
// since it was shown does not match, and is asked about again.
func (d *Desktop) AllowWorkspaceServers(dir, hash string) error {
	return d.answerWorkspaceServers(dir, store.WorkspaceTrust{Hash: hash, Allowed: true})
}

// RefuseWorkspaceServers records that the user does not allow the server file of the folder
// dir whose bytes hash to hash: none of its servers starts, and it is not asked about again
// until it changes.
func (d *Desktop) RefuseWorkspaceServers(dir, hash string) error {
	return d.answerWorkspaceServers(dir, store.WorkspaceTrust{Hash: hash})
}

func (d *Desktop) answerWorkspaceServers(dir string, answer store.WorkspaceTrust) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := d.db.SetWorkspaceTrust(abs, answer); err != nil {
		return err
	}
	if answer.Allowed {
		d.startMCP(abs)
	}
	return nil
}
