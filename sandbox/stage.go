package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// stagePattern names the folders of runs in Options.StageDir.
const stagePattern = "prototyper-run-*"

// stageDir is one run's folder: the mount point of its tmpfs (inside the namespace only)
// and, once the command ended, the staged contents of its change set. It is held with an
// flock for as long as it is in use, so that a folder left by an app that was killed can
// be told from one a running app uses: the kernel drops the lock with its process.
type stageDir struct {
	path string
	lock *os.File
}

// newStageDir sweeps the folders of dead runs from parent and makes a locked one. It is
// made under another name and renamed once locked, so that no sweep sees it unlocked.
func newStageDir(parent string) (*stageDir, error) {
	sweepStageDirs(parent)
	tmp, err := os.MkdirTemp(parent, ".prototyper-new-")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(parent, strings.Replace(stagePattern, "*", strings.TrimPrefix(filepath.Base(tmp), ".prototyper-new-"), 1))
	lock, err := os.Open(tmp)
	if err == nil {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err == nil {
		err = os.Mkdir(filepath.Join(tmp, "mnt"), 0o700)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(tmp)
		return nil, err
	}
	return &stageDir{path: path, lock: lock}, nil
}

func (s *stageDir) mnt() string   { return filepath.Join(s.path, "mnt") }
func (s *stageDir) files() string { return filepath.Join(s.path, "files") }

// remove deletes the folder and drops its lock.
func (s *stageDir) remove() error {
	if s == nil || s.lock == nil {
		return nil
	}
	err := os.RemoveAll(s.path)
	s.lock.Close()
	s.lock = nil
	return err
}

// sweepStageDirs removes the run folders in parent that no living process holds.
func sweepStageDirs(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, stagePattern))
	for _, d := range dirs {
		f, err := os.Open(d)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(d) // no process holds it: its run is dead
		}
		f.Close()
	}
}
