// Package managed runs the Ollama server Prototyper starts itself when nothing answers at a
// local address, the way Ollama's own desktop app runs its server: started when needed,
// stopped when the app quits, and never anyone else's.
//
// # Basics
//
// A [Server] is made once per app with [New] and asked with [Server.Ensure] whenever the app
// wants a server at an address (the window asks each time it checks whether Ollama runs):
//
//   - a server that answers there, the user's or one started earlier, is used as it is;
//   - an address that is not loopback (another machine, a path, https) is never started:
//     Ensure returns [ErrNotLocal], and the caller reports the server as not running;
//   - otherwise the program [Find] chooses (`ollama` on PATH, else the one `make` installs in
//     the repository's .tools/bin, else the path the settings give) runs as `ollama serve`
//     with OLLAMA_HOST set to the address's loopback host and port, the user's OLLAMA_MODELS
//     (else Ollama's default folder, so models pulled by a system install are shared), and
//     its output in the log file ollama.log of [Options].LogDir. Ensure returns once it
//     answers, within [Options].ReadyTimeout.
//
// [Server.Stop] stops only the server Ensure started: SIGTERM to the server, which stops the
// model runners it started; after [Options].StopGrace, SIGKILL to the server and everything it
// started.
//
// # Guarantees
//
//   - A server the user started is never stopped, restarted or replaced: Ensure starts one
//     only when the address refuses connections.
//   - The server is started with package tether: on Linux, an app that ends in any way (kill
//     -9 included) leaves neither the server nor its runners behind.
//   - A server that fails to start is a [StartError]: one sentence naming the log file; for a
//     server that exited it ends with the last line of its log, for one that did not answer
//     in time ([ErrNoAnswer]) it says so, with the timeout and what the user can do.
package managed
