package desktop

import (
	"prototyper/events"
	"prototyper/tools"
)

// newDevServers keeps the development servers of the window's agent and tells the window of
// them: server.started, server.output and server.ended, events of no chat, for the Preview
// pane.
func newDevServers(bridge *events.Bridge) *tools.Servers {
	ss := tools.NewServers()
	ss.OnStart = func(info tools.ServerInfo) {
		bridge.Emit(events.Event{Type: events.ServerStarted, ToolCallID: info.ID, Update: info})
	}
	ss.OnOutput = func(id string, o tools.Output) {
		bridge.Emit(events.Event{Type: events.ServerOutput, ToolCallID: id, Stream: o.Stream, Text: o.Text})
	}
	ss.OnEnd = func(id, how string) {
		bridge.Emit(events.Event{Type: events.ServerEnded, ToolCallID: id, Message: how})
	}
	return ss
}

// DevServer is a development server as the window sees it.
type DevServer = tools.ServerInfo

// DevServers lists the development servers that run, in every folder.
func (d *Desktop) DevServers() ([]DevServer, error) { return d.servers.List(""), nil }

// DevServerURL is the address at which the Preview pane shows server id's port
// ("http://127.0.0.1:PORT/"); guard is called first, as for [Desktop.PreviewOpen].
func (d *Desktop) DevServerURL(guard func() error, id string) (string, error) {
	if err := guard(); err != nil {
		return "", err
	}
	addr, err := d.servers.Forward(id)
	if err != nil {
		return "", err
	}
	return "http://" + addr + "/", nil
}

// StopDevServer stops server id and waits until it is gone.
func (d *Desktop) StopDevServer(id string) error { return d.servers.Stop(id) }
