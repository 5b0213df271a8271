package mcptools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"prototyper/tools"
)

// ErrClosed is returned by a [Set] that was closed: the app is ending, no server starts.
var ErrClosed = errors.New("Prototyper is closing: no MCP server starts now")

// Set is the MCP servers of every workspace: the global file, the workspace's own
// .prototyper/mcp.json and the files given on the command line, in that order (a later
// file's server replaces an earlier one of the same name). Each workspace's servers start
// on first use and run until [Set.Close]. It is safe for concurrent use.
//
// A workspace's own file is the folder's, not the user's: none of its servers starts until
// [Set.Trust] says the user allowed its exact bytes (and those of the files its commands name). Until then they are listed as
// [StateNotAllowed] and [Set.NotAllowed] says what they would run; a file changed since it
// was allowed is not allowed again until the user says so.
type Set struct {
	// StartTimeout bounds each server's start (0: [StartTimeout]).
	StartTimeout time.Duration
	// Trust reports whether the user allowed the server file of workspace whose bytes hash to
	// hash (see [WorkspaceServers]); nil allows none.
	Trust func(workspace, hash string) bool

	files []string // the global file, then the command line's

	mu       sync.Mutex
	settings Config                // the servers of the settings, under every file's
	managers map[string]*workspace // by workspace
	closed   bool
}

// workspace is the servers of one workspace, and the file of its own they were made with.
type workspace struct {
	m       *Manager
	own     *WorkspaceServers // nil: the workspace has no file
	allowed bool              // the user allowed own
}

// ownHash is the hash of the file the servers were made with ("" for none).
func (w *workspace) ownHash() string {
	if w.own == nil {
		return ""
	}
	return w.own.Hash
}

// NewSet returns the servers of the global file global ("" for none) and of the files
// given on the command line.
func NewSet(global string, files ...string) *Set {
	return &Set{files: append([]string{global}, files...), managers: map[string]*workspace{}}
}

// Files are the server files of workspace, in the order they apply.
func (s *Set) Files(workspace string) []string {
	files := []string{s.files[0]}
	if workspace != "" {
		files = append(files, WorkspaceFile(workspace))
	}
	return append(files, s.files[1:]...)
}

// Manager returns the manager of workspace's servers; an unreadable file is an error. The
// workspace's own file is read again at each call: when its bytes, or the user's answer about
// them, changed, the servers made from it end and the manager is made anew.
func (s *Set) Manager(workspace string) (*Manager, error) {
	w, err := s.workspace(workspace)
	if err != nil {
		return nil, err
	}
	return w.m, nil
}

func (s *Set) workspace(dir string) (*workspace, error) {
	dir = absolute(dir)
	var own *WorkspaceServers
	if dir != "" {
		var err error
		if own, err = ReadWorkspaceServers(dir); err != nil {
			return nil, err
		}
	}
	allowed := own != nil && s.Trust != nil && s.Trust(dir, own.Hash)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	old, ok := s.managers[dir]
	if ok && old.ownHash() == own.hash() && old.allowed == allowed {
		return old, nil
	}
	cfg := Config{}
	for name, sc := range s.settings {
		cfg[name] = sc
	}
	global, err := LoadFiles(s.files[0])
	if err != nil {
		return nil, err
	}
	maps.Copy(cfg, global)
	if allowed {
		maps.Copy(cfg, own.config)
	}
	commandLine, err := LoadFiles(s.files[1:]...)
	if err != nil {
		return nil, err
	}
	maps.Copy(cfg, commandLine)
	w := &workspace{m: NewManager(cfg), own: own, allowed: allowed}
	w.m.StartTimeout = s.StartTimeout
	s.managers[dir] = w
	if ok {
		go old.m.Close()
	}
	return w, nil
}

func (w *WorkspaceServers) hash() string {
	if w == nil {
		return ""
	}
	return w.Hash
}

func absolute(dir string) string {
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			return abs
		}
	}
	return dir
}

// NotAllowed is the server file of workspace when it has one that the user has not allowed
// (as it is now), else nil.
func (s *Set) NotAllowed(workspace string) (*WorkspaceServers, error) {
	w, err := s.workspace(workspace)
	if err != nil || w.allowed || w.own == nil || len(w.own.Servers) == 0 {
		return nil, err
	}
	return w.own, nil
}

// ErrNotAllowed is the cause of a workspace's servers left out because the user has not
// allowed its server file.
var ErrNotAllowed = errors.New("the workspace's MCP servers are not allowed")

// NotAllowedError says that the servers of a workspace's own file do not start until the user
// allows them, and how.
type NotAllowedError struct{ Servers *WorkspaceServers }

func (e *NotAllowedError) Error() string {
	return fmt.Sprintf("the MCP servers of %s (%s) do not start until you allow them — review and allow them in the window (Settings, MCP servers), or with `prototyper mcp allow --workspace %s`",
		e.Servers.File, strings.Join(e.Servers.names(), ", "), e.Servers.Workspace)
}

func (e *NotAllowedError) Unwrap() error { return ErrNotAllowed }

func (w *WorkspaceServers) names() []string {
	var out []string
	for _, l := range w.Servers {
		out = append(out, l.Name)
	}
	return out
}

// UseSettings makes cfg the servers of the settings. When they changed, every workspace's
// servers end and start again, with the new ones, on next use.
func (s *Set) UseSettings(cfg Config) {
	s.mu.Lock()
	if reflect.DeepEqual(cfg, s.settings) || (len(cfg) == 0 && len(s.settings) == 0) {
		s.mu.Unlock()
		return
	}
	s.settings = cfg
	old := s.managers
	s.managers = map[string]*workspace{}
	s.mu.Unlock()
	for _, w := range old {
		go w.m.Close()
	}
}

// ToolsFor returns the tools of workspace's servers, starting those not started yet, and one
// sentence for each server (or file) that could not be used.
func (s *Set) ToolsFor(ctx context.Context, workspace string) ([]tools.Tool, []string) {
	w, err := s.workspace(workspace)
	if err != nil {
		return nil, []string{err.Error()}
	}
	m := w.m
	var usable []tools.Tool
	var notices []string
	if !w.allowed && w.own != nil && len(w.own.Servers) > 0 {
		notices = append(notices, (&NotAllowedError{w.own}).Error())
	}
	for _, t := range m.Tools(ctx) {
		// a schema the validator cannot compile would refuse the whole toolbox: leave it out
		if _, err := tools.NewRegistry(t); err != nil {
			notices = append(notices, "the MCP tool "+t.Definition().Name+" has an input schema Prototyper cannot read; it is not offered")
			continue
		}
		usable = append(usable, t)
	}
	for _, st := range m.Status() {
		if st.State == StateFailed {
			notices = append(notices, st.Error)
		}
	}
	return usable, notices
}

// Status is the state of workspace's servers (none started by asking); the servers of a
// workspace's file the user has not allowed are [StateNotAllowed], after the others.
func (s *Set) Status(workspace string) ([]Status, error) {
	w, err := s.workspace(workspace)
	if err != nil {
		return nil, err
	}
	st := w.m.Status()
	if !w.allowed && w.own != nil {
		why := (&NotAllowedError{w.own}).Error()
		for _, l := range w.own.Servers {
			st = append(st, Status{Name: l.Name, State: StateNotAllowed, Source: w.own.File, Tools: []string{}, Error: why})
		}
	}
	return st, nil
}

// Close ends the servers of every workspace.
func (s *Set) Close() error {
	s.mu.Lock()
	s.closed = true
	managers := s.managers
	s.managers = map[string]*workspace{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range managers {
		wg.Add(1)
		go func() { defer wg.Done(); _ = w.m.Close() }()
	}
	wg.Wait()
	return nil
}
