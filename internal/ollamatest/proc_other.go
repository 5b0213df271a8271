//go:build !unix

package ollamatest

import "os/exec"

func supervised(bin string) *exec.Cmd { return exec.Command(bin, "serve") }

func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func processAlive(pid int) bool { return true }
