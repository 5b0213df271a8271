package cli

import (
	"context"
	"errors"
	"path/filepath"

	"prototyper/agentloop/ollama"
	"prototyper/agentloop/ollama/managed"
	"prototyper/store"
)

// ServerStart is what the window shows of the Ollama server it starts itself: whether the
// server answering is that one ("Ollama (started by Prototyper)"), or why none could start.
type ServerStart struct {
	// StartedByApp: the server answering is the one Prototyper started; it stops it when it
	// quits.
	StartedByApp bool `json:"startedByApp"`
	// StartError: why Prototyper could not start a server, one sentence (ending with the
	// last line of the server's log when it ran); "" when it did not try or succeeded.
	StartError string `json:"startError,omitempty"`
	// LogPath: the log of the server Prototyper started, or tried to.
	LogPath string `json:"logPath,omitempty"`
}

// newManagedServer is the server the window starts, its log beside the database.
func newManagedServer(db *store.DB) *managed.Server {
	return managed.New(managed.Options{LogDir: filepath.Dir(db.Path())})
}

// ensureOllama starts an Ollama server when nothing answers at raw, the address is local
// and the settings let the window start one (see [managed.Server.Ensure]); a user's server,
// and a remote address, are left as they are.
func (d *Desktop) ensureOllama(ctx context.Context, raw string) ServerStart {
	settings, err := d.db.Settings()
	if err != nil || !settings.StartsOllama() {
		return ServerStart{}
	}
	u, err := ollama.ResolveHost(raw)
	if err != nil {
		return ServerStart{}
	}
	state, err := d.serve.Ensure(ctx, u, settings.OllamaBinary)
	switch {
	case errors.Is(err, managed.ErrNotLocal):
		return ServerStart{}
	case err != nil:
		var se *managed.StartError
		if errors.As(err, &se) {
			return ServerStart{StartError: err.Error(), LogPath: se.LogPath}
		}
		return ServerStart{StartError: err.Error()}
	}
	return ServerStart{StartedByApp: state.Started, LogPath: state.LogPath}
}
