//go:build !unix

package tether

import (
	"os"
	"os/exec"
)

func setGroup(*exec.Cmd) {}

func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
