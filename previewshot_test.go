package main

import (
	"errors"
	"image/color"
	"testing"
)

// argb32 is a cairo ARGB32 snapshot (B, G, R, A bytes) of w×h pixels of colour bg, with the
// rectangle [x0,x1)×[y0,y1) in fg, and rows padded past their pixels as cairo's stride may.
func argb32(w, h int, bg, fg [4]byte, x0, y0, x1, y1 int) snapshot {
	stride := w*4 + 8
	pix := make([]byte, stride*h)
	for y := range h {
		for x := range w {
			c := bg
			if x >= x0 && x < x1 && y >= y0 && y < y1 {
				c = fg
			}
			copy(pix[y*stride+x*4:], c[:])
		}
	}
	return snapshot{pix: pix, width: w, height: h, stride: stride}
}

func TestAPreviewScreenshotIsTheFramesRectangleAtTheViewsScale(t *testing.T) {
	// a window 100 CSS pixels wide, 200 device pixels; the frame at (30,10) 40×20 CSS pixels, all blue
	blue := [4]byte{200, 0, 0, 255} // B, G, R, A
	s := argb32(200, 120, [4]byte{255, 255, 255, 255}, blue, 60, 20, 140, 60)
	img, err := s.crop(30, 10, 40, 20, 100)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 80 || b.Dy() != 40 {
		t.Fatalf("the picture is %v, want the frame's 80×40 device pixels", b)
	}
	for _, p := range [][2]int{{0, 0}, {79, 39}, {40, 20}} {
		if got := img.NRGBAAt(p[0], p[1]); got != (color.NRGBA{0, 0, 200, 255}) {
			t.Errorf("pixel %v is %v, want the frame's blue", p, got)
		}
	}
}

func TestAPreviewScreenshotIsCutToTheWindowAndRefusedWhenNothingIsInView(t *testing.T) {
	s := argb32(100, 60, [4]byte{0, 0, 0, 255}, [4]byte{0, 0, 0, 255}, 0, 0, 0, 0)
	img, err := s.crop(80, 50, 40, 40, 100)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 20 || b.Dy() != 10 {
		t.Errorf("the picture is %v, want the 20×10 pixels of the frame inside the window", b)
	}
	if _, err := s.crop(120, 0, 40, 40, 100); !errors.Is(err, errShotOutside) {
		t.Errorf("a frame outside the window: %v, want errShotOutside", err)
	}
}

func TestAPreviewScreenshotUndoesPremultipliedAlphaAndIgnoresItWhenOpaque(t *testing.T) {
	half := argb32(1, 1, [4]byte{0, 0, 100, 128}, [4]byte{}, 0, 0, 0, 0) // red 200 at half alpha
	img, _ := half.crop(0, 0, 1, 1, 1)
	if got := img.NRGBAAt(0, 0); got.R < 198 || got.R > 201 || got.A != 128 {
		t.Errorf("a half-transparent pixel is %v, want red ≈199 at alpha 128", got)
	}
	half.opaque = true
	img, _ = half.crop(0, 0, 1, 1, 1)
	if got := img.NRGBAAt(0, 0); got != (color.NRGBA{100, 0, 0, 255}) {
		t.Errorf("an RGB24 pixel is %v, want its colour, opaque", got)
	}
}
