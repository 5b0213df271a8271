package desktop

import (
	"encoding/base64"
	"slices"
	"testing"

	"prototyper/agentloop"
	"prototyper/internal/cli"
)

// The images of a box not sent are kept as the box holds them, as far as a message could carry
// them: an image it could not (no image the models read, too large, past the eighth) does not
// stop the others being kept; the Send of the box says what is wrong with it.
func TestTheBoxsImagesThatAMessageCouldCarryAreKeptAndTheOthersLeftToItsSend(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	png := "iVBORw0KGgpmYWtl" // a PNG's signature and "fake"
	if err := d.SaveDraftImages("", []string{png}); err != nil {
		t.Fatal(err)
	}
	if got, err := d.DraftImages(); err != nil || !slices.Equal(got[""], []string{png}) {
		t.Fatalf("DraftImages = %v, %v; want the box's image", got, err)
	}
	bmp := base64.StdEncoding.EncodeToString([]byte("BM a bitmap"))
	huge := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, agentloop.MaxImageBytes)...))
	box := append([]string{bmp, "not base64!", huge}, slices.Repeat([]string{png}, 9)...)
	if err := d.SaveDraftImages("", box); err != nil {
		t.Fatalf("a box with images no message carries: %v; want the others kept, no error", err)
	}
	if got, _ := d.DraftImages(); !slices.Equal(got[""], slices.Repeat([]string{png}, agentloop.MaxImages)) {
		t.Errorf("kept %d images; want the first %d a message could carry", len(got[""]), agentloop.MaxImages)
	}
	if err := d.SaveDraftImages("", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := d.DraftImages(); len(got) != 0 {
		t.Errorf("kept %v once the box was emptied; want none", got)
	}
}
