package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"prototyper/model/managed"
	"prototyper/store"
)

// localOllama is the Ollama server a command starts for its own use, the way the window does
// (the same [managed.Server], the same setting turning it off, its log beside the database):
// when nothing answers at a local address, the command starts `ollama serve`, uses it and
// stops it as it ends, so that `prototyper run` on a machine with an ollama program but no
// server ends in an answer rather than in advice.
type localOllama struct {
	serve *managed.Server
}

// startLocalOllama makes sure a server answers at base for the command cmd: a server that
// answers, a remote address, or settings that say the user runs Ollama are left as they are
// (nil, nil). When it starts one it says so on errOut; the caller stops it with
// [localOllama.stop]. An error is one sentence for the terminal: no ollama program to start,
// or one that did not start.
func startLocalOllama(ctx context.Context, errOut io.Writer, cmd, base string, settings store.Settings, logDir string) (*localOllama, error) {
	if !settings.StartsOllama() {
		return nil, nil
	}
	u, err := resolveOllama(base)
	if err != nil {
		return nil, nil // the request says what is wrong with the address
	}
	serve := managed.New(managed.Options{LogDir: logDir})
	state, err := serve.Ensure(ctx, u, settings.OllamaBinary)
	switch {
	case errors.Is(err, managed.ErrNotLocal):
		return nil, nil
	case errors.Is(err, managed.ErrNoBinary):
		return nil, &noOllamaError{URL: u.String()}
	case err != nil:
		return nil, err
	case !state.Started:
		return nil, nil
	}
	fmt.Fprintf(errOut, "prototyper %s: started Ollama at %s (%s serve, its log %s); it stops when this command ends\n",
		cmd, state.URL, state.Binary, state.LogPath)
	return &localOllama{serve: serve}, nil
}

// startCommandOllama is [startLocalOllama] for a command that does not otherwise open the
// database: it reads the settings with [commandSettings]. When ok is false the failure has
// been said on io.Err and the command ends with ExitFailed.
func startCommandOllama(ctx context.Context, io IO, cmd, base string, common Common) (local *localOllama, ok bool) {
	settings, logDir := commandSettings(common)
	local, err := startLocalOllama(ctx, io.Err, cmd, base, settings, logDir)
	if err != nil {
		printError(io.Err, cmd, err)
		return nil, false
	}
	return local, true
}

// stop stops the server startLocalOllama started, if any.
func (l *localOllama) stop() {
	if l != nil {
		l.serve.Stop()
	}
}

// noOllamaError: nothing answers at a local address and there is no ollama program to start.
type noOllamaError struct{ URL string }

func (e *noOllamaError) Error() string {
	return fmt.Sprintf("Ollama is not running at %s and no ollama program was found to start: install Ollama "+
		"(https://ollama.com/download), or run `make` in Prototyper's source folder, which builds one into .tools/bin", e.URL)
}

func (e *noOllamaError) Unwrap() error { return managed.ErrNoBinary }

// settingsLockWait is how long a command that only reads the settings waits for the
// database: a window holding it has started its server already.
const settingsLockWait = time.Second

// commandSettings are the settings a command that does not otherwise open the database reads
// to start Ollama (the defaults when there is no database yet, or it is busy), and the
// folder of the database, where the server's log goes.
func commandSettings(common Common) (store.Settings, string) {
	path, err := common.DBPath()
	if err != nil {
		return store.Settings{}, os.TempDir()
	}
	db, err := store.Open(path, store.Options{ReadOnly: true, LockTimeout: settingsLockWait})
	if err != nil {
		return store.Settings{}, filepath.Dir(path)
	}
	defer db.Close()
	settings, err := db.Settings()
	if err != nil {
		return store.Settings{}, filepath.Dir(path)
	}
	return settings, filepath.Dir(path)
}
