package tests

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// roleImage is AT-SPI's role of an <img>.
const roleImage a11yRole = 27

// blockPage is a white page with a green block in its top left corner, 120×80 CSS pixels.
const blockPage = `<!doctype html><html><head><title>Block</title></head>
<body style="margin:0;background:#ffffff"><div style="width:120px;height:80px;background:rgb(20,160,90)"></div>
<p style="margin:20px;font:16px sans-serif">A green block</p></body></html>`

// previewShotModel sees images: it writes blockPage, and says how many images the next
// message brought it (an I in its trail for each).
var previewShotModel = ollamatest.Model{Name: "e2e-preview-shot", Vision: true, Scripts: ollamatest.Scripts{
	"SU":      ollamatest.ToolCall("write_file", map[string]any{"path": "index.html", "content": blockPage}),
	"SUAT":    []string{"Wrote index.html."},
	"SUATAUI": []string{"I see one image", " in your message."},
}}

// By keyboard, in the real window: a run writes a page with a green block; Alt+P shows it;
// Alt+I attaches a screenshot of the pane's page to the message (a thumbnail in the
// composer); Enter sends it to a model that sees images, which is handed the image; the
// stored PNG is the page: green where the block is, white beside it, the pane's bar not in it.
func TestDesktopPreviewPaneAttachesAScreenshotOfThePageToAMessageForAModelThatSees(t *testing.T) {
	layoutCanMatter(t)
	r, _ := previewAfterRun(t, previewShotModel, "Make a page with a green block")
	if !r.app.says("A green block") {
		t.Fatalf("the pane does not show the page: %s", r.app.screenshot("preview-shot-page.png"))
	}
	r.app.key("alt+i")
	r.app.waitControl(roleImage, "Image 1 to send", 30*time.Second)
	r.app.waitControl(rolePushButton, "Remove image 1", 5*time.Second)
	t.Logf("the screenshot attached: %s", r.app.screenshot("preview-shot-attached.png"))

	r.app.typeText("What does this page look like?") // the composer has the focus after Alt+I
	r.app.key("Return")
	r.waitLogN(t, events.RunFinished, 2, true, 90*time.Second)
	shot, db := r.finish(t, "preview-shot-answered.png")
	t.Logf("after the answer: %s", shot)

	msgs, err := db.Messages(theOneChat(t, db).ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(msgs, func(m store.Message) bool { return m.Content == "I see one image in your message." }) {
		t.Errorf("the model was not handed the screenshot: %+v", msgs)
	}
	var pic []byte
	for _, m := range msgs {
		if m.Role == store.RoleUser && len(m.Images) == 1 {
			pic = m.Images[0]
		}
	}
	if pic == nil {
		t.Fatalf("no stored message keeps the screenshot: %+v", msgs)
	}
	kept := filepath.Join(artifactDir(t), artifactName("preview-shot-sent.png"))
	if err := os.WriteFile(kept, pic, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	b := img.Bounds()
	t.Logf("the screenshot sent is %d×%d pixels, %d bytes: %s", b.Dx(), b.Dy(), len(pic), kept)
	if b.Dx() < 200 || b.Dy() < 200 {
		t.Fatalf("the screenshot is %v: not the pane's page", b)
	}
	// the page's own pixels at its corners: the block starts at the frame's top left corner
	rgb := func(x, y int) [3]uint32 {
		r, g, bl, _ := img.At(x, y).RGBA()
		return [3]uint32{r >> 8, g >> 8, bl >> 8}
	}
	near := func(got, want [3]uint32) bool {
		for i := range got {
			if d := int(got[i]) - int(want[i]); d < -6 || d > 6 {
				return false
			}
		}
		return true
	}
	green, white := [3]uint32{20, 160, 90}, [3]uint32{255, 255, 255}
	if got := rgb(0, 0); !near(got, green) {
		t.Fatalf("the screenshot's top left pixel is %v, want the block's green %v: not cut to the frame", got, green)
	}
	// the block's size in the picture: its 120×80 CSS pixels at the window's scale (1, or 1.5
	// in the large layout, where a larger font DPI zooms the pages)
	gw, gh := 0, 0
	for gw < b.Dx() && near(rgb(gw, 2), green) {
		gw++
	}
	for gh < b.Dy() && near(rgb(2, gh), green) {
		gh++
	}
	sx, sy := float64(gw)/120, float64(gh)/80
	t.Logf("the block is %d×%d pixels in the screenshot (scale %.3f × %.3f)", gw, gh, sx, sy)
	if sx < 0.98 || sx > 2.02 || sy-sx > 0.02 || sx-sy > 0.02 {
		t.Errorf("the block is %d×%d pixels in the screenshot, want 120×80 CSS pixels at one scale", gw, gh)
	}
	for _, p := range [][2]int{{gw / 2, gh / 2}, {gw - 3, gh - 3}} {
		if got := rgb(p[0], p[1]); !near(got, green) {
			t.Errorf("pixel %v of the screenshot is %v, want the block's green %v", p, got, green)
		}
	}
	for _, p := range [][2]int{{gw + 4, 10}, {b.Dx() - 3, gh / 2}, {10, b.Dy() - 3}} {
		if got := rgb(p[0], p[1]); !near(got, white) {
			t.Errorf("pixel %v of the screenshot is %v, want the page's white %v", p, got, white)
		}
	}
}

// By keyboard, in the real window, for a model that cannot see images (previewFixModel): the
// screenshot is attached as a pasted image is, and refused the same way before anything is
// sent: the composer says why, Send cannot be pressed, Enter sends nothing.
func TestDesktopPreviewPaneScreenshotForAModelThatCannotSeeIsRefusedBeforeSending(t *testing.T) {
	r, _ := previewAfterRun(t, previewFixModel, "Make a counter page")
	r.app.key("alt+i")
	r.app.waitControl(roleImage, "Image 1 to send", 30*time.Second)
	r.app.typeText("What does this page look like?")
	if !r.app.says("cannot see images") {
		t.Errorf("the composer does not say the model cannot see the screenshot: %s", r.app.screenshot("preview-shot-blind.png"))
	}
	if send := r.app.waitControl(rolePushButton, "Send", 10*time.Second); r.app.enabled(send) {
		t.Errorf("Send can be pressed with a screenshot for a model that cannot see")
	}
	r.app.key("Return")
	time.Sleep(3 * time.Second) // as assertEnterSendsNothing: a message sent would be stored by now
	_, db := r.finish(t, "preview-shot-blind.png")
	msgs, err := db.Messages(theOneChat(t, db).ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.Role == store.RoleUser && (len(m.Images) > 0 || m.Content == "What does this page look like?") {
			t.Errorf("the refused message was sent: %+v", m)
		}
	}
	started := 0
	for _, l := range readBridgeLog(t, r.bridgeLog) {
		for _, e := range l.Events {
			if e.Type == events.RunStarted {
				started++
			}
		}
	}
	if started != 1 {
		t.Errorf("%d runs started, want only the first one", started)
	}
}
