// Command prototyper is the desktop app (Wails) and its command line. main only assembles: a
// subcommand goes to package cli; otherwise the window opens, unless another window already
// holds the same database: that one is raised instead. Nothing else is opened or dialled before
// wails.Run, and Wails' binding generation, which runs this binary, skips even that.
package main

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"prototyper/internal/cli"
	"prototyper/internal/singleinstance"
	"prototyper/internal/tether"
	"prototyper/sandbox"
)

// icon is the window's and the taskbar's icon; the desktop entry installs the same file. It is
// 256 px: GDK silently drops a window icon of 512×512 or more (the X property would exceed its
// request limit).
//
//go:embed build/appicon.png
var icon []byte

func main() {
	tether.Supervise()   // the app's binary also supervises the programs it starts, where namespaces are refused
	sandbox.DialerMain() // and reaches a development server's port from inside its sandbox
	stdio := cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}
	if len(os.Args) > 1 && cli.IsSubcommand(os.Args[1]) {
		os.Exit(cli.Main(os.Args[1:], stdio))
	}
	opts, err := cli.ParseDesktopFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, cli.ErrHelp) {
		os.Exit(cli.ExitCompleted)
	}
	if errors.Is(err, cli.ErrUsageReported) {
		os.Exit(cli.ExitUsage) // the flag package said what was wrong, with the usage
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "prototyper:", err)
		os.Exit(cli.ExitUsage)
	}

	app := NewApp(opts)
	instance, raised := claimInstance(opts, app)
	if raised != "" {
		// The user launched it again: the window they already have is now in front.
		fmt.Fprintln(os.Stderr, "prototyper:", raised)
		os.Exit(cli.ExitCompleted)
	}
	err = wails.Run(&options.App{
		Title:            "Prototyper",
		Width:            1200,
		Height:           800,
		MinWidth:         720,
		MinHeight:        480,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 255, G: 255, B: 255, A: 255},
		OnStartup:        app.startup,
		OnBeforeClose:    app.beforeClose,
		OnShutdown:       app.shutdown,
		Bind:             bound(app),
		Linux:            linuxOptions(),
	})
	instance.Release()
	if err != nil {
		fmt.Fprintln(os.Stderr, "prototyper:", err)
		os.Exit(cli.ExitFailed)
	}
	if err := app.startupErr(); err != nil {
		fmt.Fprintln(os.Stderr, "prototyper:", err)
		os.Exit(cli.ExitFailed)
	}
}

// claimInstance makes this launch the window of its database; when another window already
// is, it raises that one and returns the sentence that says so.
func claimInstance(opts cli.DesktopOptions, app *App) (instance *singleinstance.Instance, raised string) {
	if generatingBindings {
		return nil, ""
	}
	path, err := opts.DBPath()
	if err != nil {
		return nil, "" // the window's startup reports it
	}
	instance, err = singleinstance.Claim(path, app.raiseWindow)
	if errors.Is(err, singleinstance.ErrAlreadyRunning) {
		raised = "Prototyper is already running with " + path + "; its window was brought to the front"
		var unused []string
		if opts.Workspace != "" {
			unused = append(unused, "--workspace")
		}
		if opts.Model != "" {
			unused = append(unused, "--model")
		}
		if len(unused) > 0 {
			verb := " only apply"
			if len(unused) == 1 {
				verb = " only applies"
			}
			raised += " (" + strings.Join(unused, " and ") + verb + " to a new window: choose it there)"
		}
		return nil, raised
	}
	return instance, ""
}

// linuxOptions are the window's options on Linux: its icon and program name, and the GPU policy
// Wails chooses when it is given none (wailsapp/wails#2977). The zero value would be Always:
// every frame composited through OpenGL, which without a GPU (Xvfb, a virtual machine, software
// GL) makes a batch take 0.1–2 s to paint instead of a frame or two, and the bridge's paint
// acknowledgements wait that long.
func linuxOptions() *linux.Options {
	return &linux.Options{Icon: icon, ProgramName: "prototyper", WebviewGpuPolicy: linux.WebviewGpuPolicyNever}
}
