package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
)

// errNoShot starts the sentence of a screenshot of the preview that could not be taken.
var errNoShot = errors.New("the preview could not be captured: try again once the page is shown")

// errShotOutside is returned when the frame's rectangle holds no pixel of the web view.
var errShotOutside = errors.New("the preview could not be captured: its page is not in view; open the Preview pane (Alt+P) first")

// previewScreenshot is a PNG (base64, as the composer holds an attached image) of the frame
// at x, y, width, height (CSS pixels of the window, whose viewport is viewWidth CSS pixels
// wide): the page as the pane shows it.
func previewScreenshot(x, y, width, height, viewWidth float64) (string, error) {
	s, err := takeSnapshot()
	if err != nil {
		return "", err
	}
	img, err := s.crop(x, y, width, height, viewWidth)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return "", fmt.Errorf("%w (%v)", errNoShot, err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), nil
}

// crop is the snapshot's part under a rectangle of CSS pixels, cut to the snapshot's edges, as
// an image of straight (not premultiplied) colours. The snapshot is the whole viewport, which
// is viewWidth CSS pixels wide: their ratio is the scale, whatever makes it (the display's
// scale, or the page zoom WebKitGTK applies for a larger font DPI, which devicePixelRatio
// does not count).
func (s snapshot) crop(x, y, width, height, viewWidth float64) (*image.NRGBA, error) {
	scale := float64(s.width) / viewWidth
	if !(scale > 0) || math.IsInf(scale, 0) {
		scale = 1
	}
	clamp := func(v float64, hi int) int { return max(0, min(hi, int(math.Round(v*scale)))) }
	x0, y0 := clamp(x, s.width), clamp(y, s.height)
	x1, y1 := clamp(x+width, s.width), clamp(y+height, s.height)
	if x1 <= x0 || y1 <= y0 {
		return nil, errShotOutside
	}
	img := image.NewNRGBA(image.Rect(0, 0, x1-x0, y1-y0))
	for py := y0; py < y1; py++ {
		row := s.pix[py*s.stride:]
		for px := x0; px < x1; px++ {
			p := row[px*4 : px*4+4] // B, G, R, A of a native-endian ARGB32 word on little-endian machines
			a := p[3]
			if s.opaque {
				a = 255
			}
			img.SetNRGBA(px-x0, py-y0, straight(p[2], p[1], p[0], a))
		}
	}
	return img, nil
}

// straight undoes cairo's premultiplied alpha.
func straight(r, g, b, a uint8) color.NRGBA {
	if a == 0 || a == 255 {
		return color.NRGBA{r, g, b, a}
	}
	un := func(c uint8) uint8 { return uint8(min(255, (int(c)*255+int(a)/2)/int(a))) }
	return color.NRGBA{un(r), un(g), un(b), a}
}
