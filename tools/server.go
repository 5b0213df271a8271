package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"prototyper/sandbox"
)

// start_server runs a development server ("npm run dev", "python3 -m http.server") through
// [sandbox.Start]: confined like run_command, with a loopback network of its own, and kept
// running after the call (and its turn) ended, in the app's [Servers]. stop_server ends it.

// Names of the development server tools.
const (
	StartServer = "start_server"
	StopServer  = "stop_server"
)

// serverPortWait is how long start_server waits for the server to listen on a port.
const serverPortWait = 60 * time.Second

// serverTailBytes is how much of a server's latest output [Servers] keeps.
const serverTailBytes = 16 << 10

// ErrNoServer is returned for a server id that names no running server of the workspace.
var ErrNoServer = errors.New("no such server runs")

// ServerInfo is a running development server as the window and the model see it
// (details.server of start_server's result).
type ServerInfo struct {
	ID        string `json:"id"`
	Workspace string `json:"workspace"`
	Command   string `json:"command"`
	Cwd       string `json:"cwd"`
	// Port is the first port it listens on in its namespace.
	Port int `json:"port"`
}

// Servers are the development servers the agent started, across workspaces, runs and chats:
// a server outlives the turn that started it and ends with stop_server, [Servers.Stop] (the
// user's Stop on its card), [Servers.StopChat] (its chat's Stop or deletion) or
// [Servers.Close] (the app's quit; the app's death ends them too, see [sandbox.Start]). Its methods are safe for concurrent use.
type Servers struct {
	mu      sync.Mutex
	running map[string]*devServer
	closed  bool
	// OnStart, when set before the first server starts, is told of each server once it
	// listens.
	OnStart func(ServerInfo)
	// OnOutput, when set before the first server starts, receives a server's output after
	// its start_server call returned (before that it is the call's progress).
	OnOutput func(id string, o Output)
	// OnEnd, when set before the first server starts, is told when a server ended, with the
	// sentence that says how.
	OnEnd func(id, how string)
}

// devServer is one running server.
type devServer struct {
	info ServerInfo
	chat string // the chat whose run started it
	s    *sandbox.Server

	mu       sync.Mutex
	progress ProgressFunc // the start_server call's, until it returned
	tail     []byte
	out      *outputSplitter
}

// NewServers returns an empty set.
func NewServers() *Servers { return &Servers{running: map[string]*devServer{}} }

// List returns the running servers of workspace ("" for all), in the order they started.
func (ss *Servers) List(workspace string) []ServerInfo {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var out []ServerInfo
	for _, d := range ss.running {
		if workspace == "" || d.info.Workspace == workspace {
			out = append(out, d.info)
		}
	}
	slices.SortFunc(out, func(a, b ServerInfo) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Forward returns the address on the host's loopback ("127.0.0.1:PORT") at which server id's
// port is reached.
func (ss *Servers) Forward(id string) (string, error) {
	ss.mu.Lock()
	d := ss.running[id]
	ss.mu.Unlock()
	if d == nil {
		return "", fmt.Errorf("server %q: %w", id, ErrNoServer)
	}
	return d.s.Forward(d.info.Port)
}

// Stop ends server id and waits until it is gone.
func (ss *Servers) Stop(id string) error {
	ss.mu.Lock()
	d := ss.running[id]
	ss.mu.Unlock()
	if d == nil {
		return fmt.Errorf("server %q: %w", id, ErrNoServer)
	}
	d.s.Stop()
	ss.awaitGone(id)
	return nil
}

// StopChat ends the servers that chat's runs started and waits until they are gone; the
// servers of other chats, also in the same workspace, run on.
func (ss *Servers) StopChat(chat string) {
	if chat == "" {
		return
	}
	ss.mu.Lock()
	var mine []*devServer
	for _, d := range ss.running {
		if d.chat == chat {
			mine = append(mine, d)
		}
	}
	ss.mu.Unlock()
	for _, d := range mine {
		d.s.Stop()
		ss.awaitGone(d.info.ID)
	}
}

// Close stops every server; none starts afterwards.
func (ss *Servers) Close() {
	ss.mu.Lock()
	ss.closed = true
	all := make([]*devServer, 0, len(ss.running))
	for _, d := range ss.running {
		all = append(all, d)
	}
	ss.mu.Unlock()
	for _, d := range all {
		d.s.Stop()
		ss.awaitGone(d.info.ID)
	}
}

// awaitGone waits until the watcher of server id removed it.
func (ss *Servers) awaitGone(id string) {
	for {
		ss.mu.Lock()
		_, ok := ss.running[id]
		ss.mu.Unlock()
		if !ok {
			return
		}
		time.Sleep(time.Millisecond) // the watcher removes it right after the server's end
	}
}

// output is a server's chunk: to the call while it waits, to OnOutput afterwards, and to the
// tail always.
func (d *devServer) output(ss *Servers) func(c sandbox.Chunk) error {
	return func(c sandbox.Chunk) error {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.tail = append(d.tail, c.Data...)
		if len(d.tail) > serverTailBytes {
			d.tail = d.tail[len(d.tail)-serverTailBytes:]
		}
		return d.out.chunk(c)
	}
}

// detach sends the server's further output to OnOutput instead of the call's progress.
func (d *devServer) detach(ss *Servers) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.out.flush()
	d.out = newOutputSplitter(func(u any) {
		if o, ok := u.(Output); ok && ss.OnOutput != nil {
			ss.OnOutput(d.info.ID, o)
		}
	})
}

func (d *devServer) lastOutput() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.ToValidUTF8(string(d.tail), "\uFFFD")
}

func (w *Workspace) startServerTool() Tool {
	return w.commandTool(StartServer, "Start a development server that keeps running, such as \"npm run dev\" or "+
		"\"python3 -m http.server 8000\", in the workspace folder (or in cwd, a folder inside it). It runs in the "+
		"same sandbox as run_command, with no network but its own loopback, and must listen on a port of 127.0.0.1: "+
		"the call returns once it does, with the port, and the user can then see it in the Preview pane. It keeps "+
		"running after this turn until stop_server or the user stops it. Files it writes are not kept: they are "+
		"dropped when it stops (write files with the file tools or run_command).",
		"The command line of the server, run by sh -c.", true).
		Handle(w.startServer)
}

func (w *Workspace) startServer(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
	ss := w.opts.Servers
	command := call.Args.String("command")
	dir, err := w.commandDir(call.Args.String("cwd"))
	if err != nil {
		return Result{}, err
	}
	ss.mu.Lock()
	closed := ss.closed
	ss.mu.Unlock()
	if closed {
		return Result{}, errors.New("the app is quitting: no server can start")
	}
	d := &devServer{info: ServerInfo{ID: call.ID, Workspace: w.dir, Command: command, Cwd: dir}, chat: call.Chat, out: newOutputSplitter(progress)}
	opts := sandbox.Options{Workspace: w.dir, Dir: dir, Hidden: w.hidden(), StageDir: w.opts.CommandStageDir,
		HeadBytes: commandOutputBytes, TailBytes: commandOutputBytes}
	// The server outlives the call: its context is not the call's.
	s, err := sandbox.Start(context.Background(), command, opts, d.output(ss))
	if err != nil {
		return Result{}, err
	}
	d.s = s
	ended := func() string {
		res, err := s.Wait()
		switch {
		case err != nil:
			return err.Error()
		case res.ExitCode < 0:
			return "The server was stopped."
		default:
			how := fmt.Sprintf("The server exited with status %d.", res.ExitCode)
			if res.Changed > 0 {
				how += fmt.Sprintf(" The %d file(s) it wrote were dropped.", res.Changed)
			}
			return how
		}
	}
	port, err := awaitServerPort(ctx, s)
	if err != nil {
		s.Stop()
		d.mu.Lock()
		d.out.flush()
		d.mu.Unlock()
		if ctx.Err() != nil {
			return Result{}, cancelledf(ctx.Err(), "the server was stopped before it listened on a port")
		}
		text := err.Error() + " " + ended()
		if o := d.lastOutput(); o != "" {
			text += "\nOutput:\n" + o
		}
		return Result{Content: text, IsError: true}, nil
	}
	d.info.Port = port
	ss.mu.Lock()
	ss.running[d.info.ID] = d
	ss.mu.Unlock()
	d.detach(ss)
	if ss.OnStart != nil {
		ss.OnStart(d.info)
	}
	go func() {
		how := ended()
		ss.mu.Lock()
		delete(ss.running, d.info.ID)
		ss.mu.Unlock()
		if ss.OnEnd != nil {
			ss.OnEnd(d.info.ID, how)
		}
	}()
	if ctx.Err() != nil { // its chat's Stop came while it was being kept and may have missed it
		ss.Stop(d.info.ID)
		return Result{}, cancelledf(ctx.Err(), "the server was stopped with its run")
	}
	text := fmt.Sprintf("The server runs (id %q) and listens on port %d; the user can see it in the Preview pane. "+
		"It keeps running until stop_server or the user stops it; files it writes are dropped when it stops.", d.info.ID, port)
	if o := d.lastOutput(); o != "" {
		text += "\nOutput so far:\n" + o
	}
	info := d.info
	return Result{Content: text, Details: &Details{Server: &info}}, nil
}

// awaitServerPort waits until s listens on a port and returns the lowest; it fails when s
// ended first, ctx ended, or none came within serverPortWait.
func awaitServerPort(ctx context.Context, s *sandbox.Server) (int, error) {
	limit := time.NewTimer(serverPortWait)
	defer limit.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if ports := s.Ports(); len(ports) > 0 {
			return ports[0], nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-s.Done():
			return 0, errors.New("The server ended before it listened on a port.")
		case <-limit.C:
			return 0, fmt.Errorf("The server listened on no port within %s, so it was stopped.", serverPortWait)
		case <-tick.C:
		}
	}
}

func (w *Workspace) stopServerTool() Tool {
	return New(StopServer, "Stop a development server that start_server started in this workspace, by its id, "+
		"or every one of them when no id is given. The result gives its last output.").
		Param("id", "string", "The id start_server gave; default every server of this workspace.").
		Mode(Sequential).
		Approval(ApprovalAuto).
		Handle(w.stopServer)
}

func (w *Workspace) stopServer(ctx context.Context, call Call, _ ProgressFunc) (Result, error) {
	ss := w.opts.Servers
	id := call.Args.String("id")
	var ids []string
	for _, s := range ss.List(w.dir) {
		if id == "" || s.ID == id {
			ids = append(ids, s.ID)
		}
	}
	if len(ids) == 0 {
		if id == "" {
			return Result{Content: "No server of this workspace runs."}, nil
		}
		return Result{}, fmt.Errorf("server %q: %w in this workspace", id, ErrNoServer)
	}
	var text strings.Builder
	for _, id := range ids {
		ss.mu.Lock()
		d := ss.running[id]
		ss.mu.Unlock()
		if d == nil {
			continue
		}
		ss.Stop(id)
		fmt.Fprintf(&text, "Stopped the server %q (%s).\n", id, d.info.Command)
		if o := d.lastOutput(); o != "" {
			fmt.Fprintf(&text, "Its last output:\n%s\n", o)
		}
	}
	return Result{Content: strings.TrimRight(text.String(), "\n")}, nil
}
