package tests

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"prototyper/internal/testenv"
)

// debPackage is the Debian package that `make package` builds: PROTOTYPER_DEB, else the one in
// build/bin.
func debPackage(tb testing.TB) string {
	tb.Helper()
	deb := os.Getenv("PROTOTYPER_DEB")
	if deb == "" {
		matches, _ := filepath.Glob(filepath.Join(moduleRoot(tb), "build", "bin", "prototyper_*.deb"))
		if len(matches) > 0 {
			deb = matches[len(matches)-1]
		}
	}
	if deb == "" {
		testenv.Missing(tb, "the Debian package", "run `make package`")
	}
	if _, err := os.Stat(deb); err != nil {
		testenv.Missing(tb, "the Debian package "+deb, "run `make package`")
	}
	return deb
}

func dpkgDeb(tb testing.TB, args ...string) string {
	tb.Helper()
	out, err := exec.Command("dpkg-deb", args...).CombinedOutput()
	if err != nil {
		tb.Fatalf("dpkg-deb %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestPackageHoldsTheBinaryTheMenuEntryAndTheIconAndStarts reads the package as dpkg
// would install it: the binary, a valid desktop entry, the icon, the runtime libraries
// declared; then starts the packaged binary in a real window.
func TestPackageHoldsTheBinaryTheMenuEntryAndTheIconAndStarts(t *testing.T) {
	deb := debPackage(t)

	contents := dpkgDeb(t, "--contents", deb)
	for _, want := range []string{
		"./usr/bin/prototyper",
		"./usr/share/applications/prototyper.desktop",
		"./usr/share/icons/hicolor/256x256/apps/prototyper.png",
	} {
		if !strings.Contains(contents, want) {
			t.Errorf("the package lacks %s; it holds:\n%s", want, contents)
		}
	}
	if !strings.Contains(contents, "-rwxr-xr-x") {
		t.Errorf("no executable file in the package:\n%s", contents)
	}
	depends := dpkgDeb(t, "--field", deb, "Depends")
	for _, lib := range []string{"libgtk-3-0", "libwebkit2gtk-4.1-0"} {
		if !strings.Contains(depends, lib) {
			t.Errorf("Depends = %q; want %s declared", strings.TrimSpace(depends), lib)
		}
	}

	root := t.TempDir()
	dpkgDeb(t, "--extract", deb, root)
	entry := filepath.Join(root, "usr/share/applications/prototyper.desktop")
	validate := testenv.LookPath(t, "", "desktop-file-validate", "install Debian's desktop-file-utils (`make test` does)")
	if out, err := exec.Command(validate, entry).CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("desktop-file-validate: %v\n%s", err, out)
	}
	text, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Exec=prototyper", "Icon=prototyper", "StartupWMClass=prototyper"} {
		if !strings.Contains(string(text), want+"\n") {
			t.Errorf("the desktop entry lacks %q:\n%s", want, text)
		}
	}
	f, err := os.Open(filepath.Join(root, "usr/share/icons/hicolor/256x256/apps/prototyper.png"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(f)
	f.Close()
	if err != nil || cfg.Width != 256 || cfg.Height != 256 {
		t.Errorf("the icon is %dx%d (%v); want a 256x256 PNG", cfg.Width, cfg.Height, err)
	}

	bin := filepath.Join(root, "usr/bin/prototyper")
	if out, err := exec.Command(bin, "--help").CombinedOutput(); err != nil {
		t.Fatalf("the packaged binary's --help: %v\n%s", err, out)
	}
	app := launchDesktop(t, bin, startXvfb(t), []string{"--db", filepath.Join(t.TempDir(), "prototyper.db"), "--workspace", t.TempDir()})
	app.waitWindow("Prototyper", 60*time.Second)
	app.assertIconAndClass()
	app.waitForPage("package-window.png", 30*time.Second)
	if err := app.closeWindow(15 * time.Second); err != nil {
		t.Errorf("the packaged app did not exit cleanly: %s", describeExit(err))
	}
}

// `make vet`, `make test-go` and `make bench` walk this module's own packages, never the Go
// code an npm package ships in frontend/node_modules (flatted's golang/ folder), which a bare
// ./... takes in.
func TestMakeWalksOnlyTheModulesOwnGoCode(t *testing.T) {
	root := moduleRoot(t)
	run := func(name string, args ...string) []string {
		cmd := exec.Command(name, args...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		return strings.Fields(string(out))
	}
	var want []string
	for _, pkg := range run("go", "list", "./...") {
		if !strings.Contains(pkg, "/node_modules/") {
			want = append(want, pkg)
		}
	}
	if got := run("make", "-s", "--no-print-directory", "go-packages"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("make's Go packages:\n got %v\nwant %v (./... without node_modules)", got, want)
	}
}
