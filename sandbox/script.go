package sandbox

// outerScript runs as root of a fresh user, mount and PID namespace (started by
// unshare(1)): it mounts a size-limited tmpfs on the stage folder, the workspace as the
// lower layer of an overlay whose upper layer lives in that tmpfs, caps the number of PIDs
// of the namespace, then runs bwrap (its arguments follow) and reports on fd 3. It then waits
// for its stdin to close, so that the caller can read the upper layer through /proc while
// the mounts still exist; when it exits, the namespaces and every mount in them disappear.
//
// Arguments: stage folder, workspace, tmpfs size in bytes, pid_max, timeout in seconds
// (0: none), the RLIMIT_NPROC value, then the bwrap command line.
//
// Lines on fd 3: "setup STEP" and the step's error output when a step fails (exit 70);
// "ready" before the command starts; "exit N" when it ended.
const outerScript = `set -u
st=$1 ws=$2 size=$3 pidmax=$4 secs=$5 nproc=$6
shift 6
fail() { echo "setup $1" >&3; exit 70; }
mount -t tmpfs -o "size=$size,mode=0700" prototyper-sandbox "$st" 2>&3 || fail tmpfs
mkdir "$st/lower" "$st/upper" "$st/work" "$st/merged" 2>&3 || fail mkdir
mount --bind "$ws" "$st/lower" 2>&3 || fail bind
mount -t overlay overlay -o "lowerdir=$st/lower,upperdir=$st/upper,workdir=$st/work,userxattr" "$st/merged" 2>&3 || fail overlay
# Older kernels keep pid_max global: there the RLIMIT_NPROC below is the only process cap.
echo "$pidmax" >/proc/sys/kernel/pid_max 2>/dev/null
echo ready >&3
# bwrap reports on fd 4 (--json-status-fd, close-on-exec: the command never has it).
timeout -s KILL "$secs" prlimit "--nproc=$nproc:$nproc" "$@" </dev/null 4>&3 3>&-
echo "exit $?" >&3
read -r _ || true
`
