package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// bwrapArgs builds the confinement of the command itself.
func bwrapArgs(bwrap, ws, dir, mnt, command string, opts Options) []string {
	a := []string{bwrap,
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--disable-userns", "--die-with-parent", "--new-session", "--json-status-fd", "4",
		"--uid", strconv.Itoa(os.Getuid()), "--gid", strconv.Itoa(os.Getgid()),
	}
	if !opts.Network {
		a = append(a, "--unshare-net")
	}
	// The system folders, read-only; everything else of the host (homes, other projects,
	// /tmp, /var, /run, /mnt, /srv) is absent.
	for _, p := range []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store"} {
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			if t, err := os.Readlink(p); err == nil {
				a = append(a, "--symlink", t, p)
			}
		default:
			a = append(a, "--ro-bind", p, p)
		}
	}
	if opts.Network { // the resolver of systemd-resolved is linked from /etc/resolv.conf
		a = append(a, "--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve")
	}
	size := strconv.FormatInt(opts.MaxWriteBytes, 10)
	// Every writable place is a tmpfs of the write limit: /dev's own tmpfs would have none.
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--size", size, "--tmpfs", "/dev/shm", "--size", size, "--tmpfs", "/tmp")
	home := homeDir()
	a = append(a, "--size", size, "--tmpfs", home)
	for _, p := range opts.ReadOnly { // a folder that does not exist is simply not there
		a = append(a, "--ro-bind-try", p, p)
	}
	a = append(a, "--bind", filepath.Join(mnt, "merged"), ws)
	for _, p := range append(homeSecrets(home), opts.Hidden...) {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			a = append(a, "--tmpfs", p, "--remount-ro", p) // empty, and nothing can be put there
		} else if err == nil {
			a = append(a, "--ro-bind", "/dev/null", p)
		}
	}
	a = append(a, "--chdir", dir, "--clearenv")
	for _, kv := range commandEnv(home, opts.Env) {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	return append(a, "--", "/bin/sh", "-c", command)
}

func homeDir() string {
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) && h != "/" {
		return filepath.Clean(h)
	}
	return "/home/sandbox"
}

// commandEnv is the command's whole environment: the allow-list from the app's own, then
// the caller's explicit variables.
func commandEnv(home string, extra []string) []string {
	env := []string{"HOME=" + home}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "LANG" || k == "TERM" || strings.HasPrefix(k, "LC_") {
			env = append(env, kv)
		}
	}
	if os.Getenv("PATH") == "" {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	return append(env, extra...)
}

// homeSecretNames are the home's entries that hold credentials or a browser's profile. They
// are masked even where the workspace or a ReadOnly folder would show them (a workspace that
// is the home folder itself).
var homeSecretNames = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".netrc", ".git-credentials",
	".password-store", ".pki", ".mozilla", ".local/share/keyrings", ".config/gh",
	".config/google-chrome", ".config/chromium", ".config/BraveSoftware", ".config/gcloud",
}

func homeSecrets(home string) []string {
	out := make([]string, 0, len(homeSecretNames))
	for _, n := range homeSecretNames {
		out = append(out, filepath.Join(home, n))
	}
	return out
}
