package agentloop

import (
	"os"
	"path/filepath"

	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// WireOptions are what differs between the window's agent and `prototyper run`'s.
type WireOptions struct {
	// Workspace is the folder of a chat created without one (`prototyper run`: its
	// --workspace, else the current folder; the window names the folder of each new chat).
	Workspace string
	// Extra adds tools to every workspace's file tools (the MCP servers'); nil adds none.
	Extra ExtraTools
	// ConfigFiles are configuration files of the app outside its configuration folders
	// (--mcp-config's file), refused to the tools like those folders.
	ConfigFiles []string
	// Buffers is where read_file reads files an editor may hold unsaved (`prototyper acp`);
	// nil reads the disk.
	Buffers tools.Buffers
	// Servers keeps the development servers start_server starts (the window's); nil offers
	// neither start_server nor stop_server.
	Servers *tools.Servers
}

// Wire returns the agent of the app, the one constructor of both the window and
// `prototyper run`: model answers, db keeps the chats and the settings, emitter takes the
// events, and the tools are the workspace file tools, which refuse the app's own files: the
// database, its lock and its backups (the database's folder and the file itself, also
// through a link) and the configuration folders (appConfigDirs).
func Wire(db *store.DB, modelName model.Model, emitter Emitter, opts WireOptions) *Agent {
	files := tools.WorkspaceOptions{
		ProtectedDirs:  []string{filepath.Dir(db.Path())},
		ProtectedFiles: []string{db.Path()},
		ConfigDirs:     appConfigDirs(),
		ConfigFiles:    opts.ConfigFiles,
		Buffers:        opts.Buffers,
		Commands:       true,
		Servers:        opts.Servers,
		UnconfinedCommands: func() bool {
			s, err := db.Settings()
			return err == nil && s.UnconfinedCommands
		},
	}
	factory := WorkspaceTools(files)
	if opts.Extra != nil {
		factory = withExtraTools(files, opts.Extra)
	}
	return NewAgent(Config{
		Model:     modelName,
		Store:     db,
		Emitter:   emitter,
		Tools:     factory,
		Files:     files,
		Workspace: opts.Workspace,
	})
}

// appConfigDirs are the folders of the app's own configuration, which no tool may read or
// change: a workspace's [tools.WorkspaceConfigDir] (relative, so each workspace's own) and
// the user's config folder (os.UserConfigDir()/prototyper), whose files (the MCP servers the
// app starts) an agent could otherwise turn into a program of its choosing.
func appConfigDirs() []string {
	dirs := []string{tools.WorkspaceConfigDir}
	if dir, err := os.UserConfigDir(); err == nil {
		dirs = append(dirs, filepath.Join(dir, "prototyper"))
	}
	return dirs
}
