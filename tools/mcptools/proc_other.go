//go:build !linux

package mcptools

import "os/exec"

// endWithParent does nothing here: closing the session ends the server.
func endWithParent(*exec.Cmd) {}

// killGroup ends the server's process, if it is still there.
func killGroup(cmd *exec.Cmd) {
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
