// Package sandbox runs one command line confined by the operating system and reports what it
// changed in the workspace, without changing it.
//
// # Basics
//
// [Run] runs "sh -c COMMAND" in a folder of the workspace and returns when the command and
// everything it started have ended. Output reaches an [OutputFunc] as it comes, one call per
// chunk; [Result.Output] keeps a bounded copy for a model (head and tail, the middle
// counted). The command writes into a copy-on-write layer, never into the workspace: when it
// ends, [Result.Changes] is its [ChangeSet] (files created, modified, deleted, mode changes,
// symlinks; names with any bytes), with the new bytes staged on disk. The caller previews
// and checkpoints it, then calls [ChangeSet.Apply], and always [ChangeSet.Close].
//
//	res, err := sandbox.Run(ctx, "npm test", sandbox.Options{Workspace: dir, Timeout: time.Minute},
//		func(c sandbox.Chunk) error { show(c.Stream, c.Data); return nil })
//	if errors.Is(err, sandbox.ErrUnavailable) { /* say err.Error() to the user */ }
//	defer res.Changes.Close()
//	// checkpoint the paths of res.Changes.Changes, then:
//	err = res.Changes.Apply(dir)
//
// Cancelling the context (Stop) kills the command and all it started at once and returns
// the context's error with no change set; [Options.Timeout] kills it too but keeps the
// change set of what it wrote until then. [ChangeSet.ApplyContext] is Apply that Stop ends
// before its next change, taking back the changes it made ([ErrTakenBack]).
//
// # Confinement
//
// Two layers of namespaces, both made by maintained tools of the distribution:
//
//   - unshare(1) makes a user, mount and PID namespace in which the app's user is root. It
//     mounts a tmpfs of [Options.MaxWriteBytes] and in it the overlay: the workspace as the
//     lower layer, the upper layer in the tmpfs (overlayfs in a user namespace, Linux 5.11+).
//     It caps the namespace's pid_max (Linux 6.14+) and runs bubblewrap under
//     RLIMIT_NPROC ([Options.MaxProcesses]) and timeout(1).
//   - bwrap(1) runs the command in its own user, PID, IPC, UTS and (unless
//     [Options.Network]) network namespace, with no capabilities, no_new_privs (setuid
//     programs gain nothing), nested user namespaces disabled, a new session (no access to
//     the app's terminal) and --die-with-parent. Its root holds only the system folders
//     (/usr, /bin, /sbin, /lib*, /etc, /opt), read-only; a private /proc, /dev and /tmp; the
//     home folder is an empty tmpfs (no ~/.ssh, no browser profiles, no other projects),
//     plus what [Options.ReadOnly] names; the workspace is the overlay's merged view at its
//     own path; [Options.Hidden] (the app's database and config folder) and the home's
//     credentials (~/.ssh, ~/.gnupg, ~/.aws, browser profiles, …) are masked last, even
//     inside the workspace.
//     The environment is PATH, HOME, LANG, LC_* and TERM plus [Options.Env]: no keys, no
//     tokens.
//
// Nothing outlives the command: when its first process ends, the kernel kills the rest of
// its PID namespace. If the app dies (kill -9), the parent-death signal kills unshare, whose
// --kill-child kills the outer namespace's first process, and with it every process and the
// tmpfs: the workspace is unchanged, since the change set is applied only by the caller.
//
// Where this cannot be set up (no bwrap, user namespaces refused, no overlayfs in user
// namespaces) Run returns an [*UnavailableError] whose sentence says what the user can do,
// and runs nothing. [Options.Unconfined] runs the command directly in the workspace, for a
// caller whose user knowingly chose that: there is no change set then. It runs under the
// app's binary as its supervisor (tether.StartSupervised), which kills every process the
// command started when it ends, is stopped, or the app dies: a binary that may run one calls
// tether.Supervise first in main (a test binary in TestMain), as it calls [DialerMain].
//
// # Caveats
//
//   - Root is exempt from RLIMIT_NPROC: for an app running as root the process cap is the
//     namespace's pid_max, which the kernel allows no lower than 301, and on kernels before
//     6.14 there is none.
//   - Files of the workspace owned by a user other than the app's, or by a group other than
//     its primary group (a shared project's group, a setgid folder's), cannot be changed by
//     the command: overlayfs refuses to copy up an owner it cannot map, and the command reads
//     "Value too large for defined data type" (EOVERFLOW). The user namespace maps only the
//     app's user and primary group, since mapping more needs newuidmap and subordinate IDs.
//   - A command with network allowed shares the host's network namespace: it reaches the
//     host's loopback and its abstract Unix sockets (an X server's, some D-Bus buses') too.
//     Without network, both are out of reach.
//   - There is no seccomp filter beyond bubblewrap's own: system calls such as keyctl reach
//     the kernel as they would for any process of the user.
//   - Everything the command writes into the workspace counts against MaxWriteBytes, and a
//     modified file is copied up whole. The change set's new bytes stay in a
//     prototyper-run-* folder of [Options.StageDir] until Close; the folder is locked while
//     in use, and the next Run removes those an app left when it was killed.
//   - A workspace that changed while the command ran: the change set compares with the
//     workspace as it is when the command ends; the caller's checkpoint records what Apply
//     replaces.
package sandbox
