package managed

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrNoBinary is returned by [Find] (and so by [Server.Ensure]) when no ollama program is
// found: none on PATH, none installed by `make` beside the app, none in the settings.
var ErrNoBinary = errors.New("no ollama program was found to start: install Ollama (https://ollama.com/download), run `make run` from the repository, or set the Ollama program's path in the settings")

// toolsBinary is where `make` installs the pinned server, relative to the repository root.
var toolsBinary = filepath.Join(".tools", "bin", "ollama")

// toolsDepth is how many folders above the app's own Find looks for .tools/bin/ollama: the
// app is build/bin/prototyper in the repository.
const toolsDepth = 3

// Locations are where [Find] looks for the ollama program.
type Locations struct {
	// LookPath finds a program on PATH (exec.LookPath when nil).
	LookPath func(file string) (string, error)
	// Executable is the app's own path (os.Executable when empty); .tools/bin/ollama is
	// looked for in the folders above it, its links resolved.
	Executable string
	// Setting is the path the settings give, tried last; "" for none.
	Setting string
}

// Find returns the ollama program to start: `ollama` on PATH, else .tools/bin/ollama in one of
// the folders above the app's executable (where `make` installs the pinned server, so `make
// run` works with nothing installed), else the settings' path. A settings' path that is not
// an executable file is an error that names it; nothing at all is [ErrNoBinary].
func Find(l Locations) (string, error) {
	lookPath := l.LookPath
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if p, err := lookPath("ollama"); err == nil {
		return p, nil
	}
	exe := l.Executable
	if exe == "" {
		exe, _ = os.Executable()
	}
	if exe != "" {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		dir := filepath.Dir(exe)
		for range toolsDepth {
			if p := filepath.Join(dir, toolsBinary); isExecutable(p) {
				return p, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	if l.Setting != "" {
		if !isExecutable(l.Setting) {
			return "", fmt.Errorf("the Ollama program set in the settings, %s, is not an executable file: correct its path in the settings", l.Setting)
		}
		return l.Setting, nil
	}
	return "", ErrNoBinary
}

// isExecutable reports whether path is a regular file someone may execute.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
