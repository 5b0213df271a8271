package mcptools

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
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
type Set struct {
	// StartTimeout bounds each server's start (0: [StartTimeout]).
	StartTimeout time.Duration

	files []string // the global file, then the command line's

	mu       sync.Mutex
	settings Config              // the servers of the settings, under every file's
	managers map[string]*Manager // by workspace
	closed   bool
}

// NewSet returns the servers of the global file global ("" for none) and of the files
// given on the command line.
func NewSet(global string, files ...string) *Set {
	return &Set{files: append([]string{global}, files...), managers: map[string]*Manager{}}
}

// Files are the server files of workspace, in the order they apply.
func (s *Set) Files(workspace string) []string {
	files := []string{s.files[0]}
	if workspace != "" {
		files = append(files, WorkspaceFile(workspace))
	}
	return append(files, s.files[1:]...)
}

// Manager returns the manager of workspace's servers; an unreadable file is an error.
func (s *Set) Manager(workspace string) (*Manager, error) {
	if workspace != "" {
		if abs, err := filepath.Abs(workspace); err == nil {
			workspace = abs
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.managers[workspace]; ok {
		return m, nil
	}
	files, err := LoadFiles(s.Files(workspace)...)
	if err != nil {
		return nil, err
	}
	cfg := Config{}
	for name, sc := range s.settings {
		cfg[name] = sc
	}
	for name, sc := range files {
		cfg[name] = sc
	}
	if s.closed {
		return nil, ErrClosed
	}
	m := NewManager(cfg)
	m.StartTimeout = s.StartTimeout
	s.managers[workspace] = m
	return m, nil
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
	s.managers = map[string]*Manager{}
	s.mu.Unlock()
	for _, m := range old {
		go m.Close()
	}
}

// ToolsFor returns the tools of workspace's servers, starting those not started yet, and one
// sentence for each server (or file) that could not be used.
func (s *Set) ToolsFor(ctx context.Context, workspace string) ([]tools.Tool, []string) {
	m, err := s.Manager(workspace)
	if err != nil {
		return nil, []string{err.Error()}
	}
	var usable []tools.Tool
	var notices []string
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

// Status is the state of workspace's servers (none started by asking).
func (s *Set) Status(workspace string) ([]Status, error) {
	m, err := s.Manager(workspace)
	if err != nil {
		return nil, err
	}
	return m.Status(), nil
}

// Close ends the servers of every workspace.
func (s *Set) Close() error {
	s.mu.Lock()
	s.closed = true
	managers := s.managers
	s.managers = map[string]*Manager{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, m := range managers {
		wg.Add(1)
		go func() { defer wg.Done(); _ = m.Close() }()
	}
	wg.Wait()
	return nil
}
