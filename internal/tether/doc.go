// Package tether starts the programs Prototyper runs (the MCP servers, the Ollama server it
// manages) so that they, and every process they start in turn, end when the app ends, however
// it ends: a clean exit, a crash, or kill -9.
//
// # Basics
//
// [Start] starts an [exec.Cmd] and returns its [Process]. [Process.Kill] ends the program and
// everything it started; [Process.Signal] asks the program alone to stop (SIGTERM, say).
//
// On Linux the program runs as pid 1 of a PID namespace of its own ([ModeNamespace]); an app
// that is not root makes it inside a user namespace of its own too, mapping only the user's
// own uid and gid. The program has a parent-death signal (SIGKILL), set on a thread that lives
// exactly as long as the program: when the app dies the kernel kills the program, and when the
// pid 1 of a namespace dies the kernel kills every process of the namespace.
//
// Where namespaces are refused (a kernel or a policy that forbids user namespaces), the
// program runs under a supervisor ([ModeSupervisor]): the app's own binary, run again, which
// calls [Supervise] before anything else in main. The supervisor is a child subreaper (every
// orphaned descendant of the program becomes its child), passes signals on to the program,
// and kills every descendant when the program exits or when the app goes, which it learns from
// the end of a pipe only the app holds open (the kernel closes it however the app dies).
// [StartSupervised] chooses it for a program that must see the machine as the app does (a
// command the user let run unconfined): no namespace, and still nothing of it outlives the app.
//
// Elsewhere the program leads a process group of its own, ended on a clean exit only.
//
// # Caveats
//
//   - In a PID namespace the program is an init: signals it installed no handler for are
//     ignored when they come from the app (SIGKILL always works). [Process.Kill] does not
//     depend on this; a program asked to stop by a signal it ignores is killed after a grace.
//   - In a user namespace, files of users other than the app's own show as owned by nobody.
//   - PROTOTYPER_TETHER=supervisor in the app's environment chooses the supervisor on Linux.
package tether
