// Package desktop is the window's session, without the window: [OpenDesktop] assembles for the
// window what `prototyper run` assembles for the terminal (the store, the agent, the model
// server, the MCP servers), and a [Desktop] keeps the folder and the model of new chats, the
// preload of the model in use, the pulls and the Ollama server the window starts.
//
// app.go binds a Desktop's methods to the frontend, one call each, and gives it the window's
// sink; nothing here imports Wails, so a test drives a Desktop as the window does. Changes to a
// chat (its folder, model, history, or deleting it) go through the agent, which makes them
// under the chat's lock. The session imports package cli only for the window's flags and the
// helpers the command line shares with it.
package desktop
