package desktop

import (
	"slices"
	"strings"
	"testing"

	"prototyper/internal/cli"
)

// The images of a box not sent are kept as the box holds them, and bounded as a message's
// images are: more than a message can carry is refused with the sentence a Send would get.
func TestTheBoxsImagesAreKeptWithinTheBoundsOfAMessagesImages(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	png := "iVBORw0KGgpmYWtl" // a PNG's signature and "fake"
	if err := d.SaveDraftImages("", []string{png}); err != nil {
		t.Fatal(err)
	}
	if got, err := d.DraftImages(); err != nil || !slices.Equal(got[""], []string{png}) {
		t.Fatalf("DraftImages = %v, %v; want the box's image", got, err)
	}
	err := d.SaveDraftImages("", slices.Repeat([]string{png}, 9))
	if err == nil || !strings.Contains(err.Error(), "a message takes at most 8 images; send the others in another message") {
		t.Fatalf("nine images: %v; want the sentence a Send of them gets", err)
	}
	if got, _ := d.DraftImages(); len(got[""]) != 1 {
		t.Errorf("kept %d images after a refusal; want what was kept before", len(got[""]))
	}
	if err := d.SaveDraftImages("", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := d.DraftImages(); len(got) != 0 {
		t.Errorf("kept %v once the box was emptied; want none", got)
	}
}
