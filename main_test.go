package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// Setting any Linux option makes Wails take the GPU policy from it, whose zero value is Always;
// the window keeps Never, Wails' own choice, or it paints slowly wherever there is no GPU.
func TestTheWindowKeepsWailsDefaultGPUPolicyBesideItsIcon(t *testing.T) {
	o := linuxOptions()
	if o.WebviewGpuPolicy != linux.WebviewGpuPolicyNever {
		t.Errorf("WebviewGpuPolicy = %v, want WebviewGpuPolicyNever", o.WebviewGpuPolicy)
	}
	if len(o.Icon) == 0 || o.ProgramName != "prototyper" {
		t.Errorf("icon of %d bytes, program name %q; want the app's icon and %q", len(o.Icon), o.ProgramName, "prototyper")
	}
}

// app.go only binds: a bound method that answers only with an error reaches the desktop
// through onDesktop, the one place that says why there is none, never by hand.
func TestABoundMethodAnsweringWithAnErrorGoesThroughOnDesktop(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "app.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || !fn.Name.IsExported() || fn.Type.Results == nil || len(fn.Type.Results.List) != 1 {
			continue
		}
		if id, ok := fn.Type.Results.List[0].Type.(*ast.Ident); !ok || id.Name != "error" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "desktop" {
				t.Errorf("App.%s calls a.desktop() by hand: use a.onDesktop", fn.Name.Name)
			}
			return true
		})
	}
}
