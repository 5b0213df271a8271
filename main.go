// Command prototyper is the desktop app (Wails) and its command line. main only assembles: a
// subcommand goes to package cli; otherwise the window opens. Nothing is opened or dialled
// before wails.Run, so Wails' binding generation, which runs this binary, trips over nothing.
package main

import (
	"embed"
	"errors"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"

	"prototyper/internal/cli"
)

//go:embed all:frontend/dist
var assets embed.FS

func main() {
	stdio := cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}
	if len(os.Args) > 1 && cli.IsSubcommand(os.Args[1]) {
		os.Exit(cli.Main(os.Args[1:], stdio))
	}
	opts, err := cli.ParseDesktopFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, cli.ErrHelp) {
		os.Exit(cli.ExitCompleted)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "prototyper:", err)
		os.Exit(cli.ExitUsage)
	}

	app := NewApp(opts)
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
		Bind:             []any{app},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "prototyper:", err)
		os.Exit(cli.ExitFailed)
	}
	if err := app.startupErr(); err != nil {
		fmt.Fprintln(os.Stderr, "prototyper:", err)
		os.Exit(cli.ExitFailed)
	}
}
