package tests

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/model/ollama"
	"prototyper/store"
)

// misbehavingModel does what real local models do: it writes its first call as JSON text,
// then lists the workspace again and again.
var misbehavingModel = ollamatest.Model{Name: "e2e-misbehaving", Scripts: ollamatest.Scripts{
	"SU": slices.Concat(ollamatest.Think("Write the notes."),
		[]string{"```json\n", `{"name": "write_file", "arguments": {"path": "notes.txt", "content": "from text\n"}}`, "\n```"}),
	"SUAT":              slices.Concat(ollamatest.Think("Look."), ollamatest.ToolCall("list_dir", map[string]any{"path": "."})),
	ollamatest.Fallback: slices.Concat(ollamatest.Think("Again."), ollamatest.ToolCall("list_dir", map[string]any{"path": "."})),
}}

// TestDesktopAColdModelALoopAndACallWrittenAsText: the model is not loaded when the message
// goes (the window says it is loading), its call written as text waits for approval on a card
// that says so although every tool is set to auto, runs once approved, and its loop ends the
// run with the sentence naming the call.
func TestDesktopAColdModelALoopAndACallWrittenAsText(t *testing.T) {
	r := startDesktopRunWith(t, misbehavingModel, store.Settings{Think: "on", ToolApproval: map[string]string{"*": "auto"}}, "")
	// the window preloads the model it starts with: wait for that, then unload it again
	waitLoaded(t, ollamatest.Get(t).URL(), misbehavingModel.Name)
	client := ollama.New(ollamatest.BaseURL(t))
	ctx := ollamatest.Context(t)
	if _, err := client.Load(ctx, misbehavingModel.Name, ollama.KeepAliveFor(0), nil); err != nil {
		t.Fatal(err)
	}
	for loaded := true; loaded; time.Sleep(50 * time.Millisecond) {
		loaded, _ = client.IsLoaded(ctx, misbehavingModel.Name)
	}

	r.app.typeText("Write notes.txt")
	r.app.key("Return")
	r.waitLog(t, events.ModelLoading, true, 60*time.Second)
	r.app.screenshot("e2e-misbehaving-loading.png")
	r.waitLog(t, events.ToolApprovalRequest, true, 120*time.Second)
	if r.hasFile("notes.txt") {
		t.Fatal("the call written as text ran before the user approved it")
	}
	if !r.app.says("Written as text by the model") || !r.app.says("approve it only if it is what you asked for") {
		t.Errorf("the waiting card does not say the call was written as text (%s)", r.app.screenshot("e2e-misbehaving-waiting.png"))
	}
	r.app.screenshot("e2e-misbehaving-waiting.png")
	r.app.key("alt+a")
	lines := r.waitResumedFinished(t, 120*time.Second)
	shot, db := r.finish(t, "e2e-misbehaving.png")
	t.Logf("screenshot after the run: %s", shot)

	r.wantWritten(t, "notes.txt", "from text\n") // the call written as text ran, approved
	chat := theOneChat(t, db)
	runs, _ := db.RunsOf(chat.ID)
	if len(runs) != 2 || runs[0].StopReason != events.StopAwaitingApproval || runs[1].StopReason != events.StopLoop {
		t.Fatalf("runs %+v; want one paused on the call, then one stopped as a loop", runs)
	}
	calls, _ := db.ToolCalls(chat.ID)
	if len(calls) != 4 || calls[0].Name != "write_file" || calls[0].Origin != events.OriginText {
		t.Fatalf("tool records %+v; want the recovered write, one list_dir, the notice and the stopped call", calls)
	}
	// the two calls that ran were painted running before their results; the notice and the
	// stopped call never ran
	painted := map[string]bool{}
	sent := map[string]bool{}
	for _, l := range lines {
		if l.Kind == events.LogKindAck {
			for _, id := range l.Running {
				painted[id] = true
			}
			continue
		}
		for _, e := range l.Events {
			if e.Type == events.ToolResult {
				sent[e.ToolCallID] = painted[e.ToolCallID]
			}
		}
	}
	for i, c := range calls {
		ran := !c.StartedAt.IsZero()
		if ran != (i < 2) {
			t.Errorf("call %d (%s) ran: %v", i, c.Name, ran)
		}
		if ranPainted, ok := sent[c.ID]; !ok || ran && !ranPainted {
			t.Errorf("call %d (%s): result sent %v, painted running first %v", i, c.Name, ok, ranPainted)
		}
	}
}

// noterModel answers every message, and every request for a summary, with "Noted."
var noterModel = ollamatest.Model{Name: "e2e-noter", NoThinking: true, Scripts: ollamatest.Scripts{
	ollamatest.Fallback: {"Noted", "."},
}}

// countLogged counts the events of type typ the bridge sent, and returns the seq of the last.
func countLogged(lines []bridgeLine, typ events.Type) (n int, last uint64) {
	for _, l := range lines {
		for _, e := range l.Events {
			if e.Type == typ {
				n, last = n+1, e.Seq
			}
		}
	}
	return n, last
}

// sendUntilOffered types long messages into the composer, one run after the other, until the
// window has painted the offers-th offer to summarize older messages.
func (r *desktopRun) sendUntilOffered(t *testing.T, offers int) {
	t.Helper()
	for i := 0; i < 10; i++ {
		finished, _ := countLogged(readBridgeLog(t, r.bridgeLog), events.RunFinished)
		r.pasteLongNote(t, fmt.Sprintf("Note %d.%d: ", offers, i))
		r.app.key("Return")
		lines := r.waitLogN(t, events.RunFinished, finished+1, true, 120*time.Second)
		if n, _ := countLogged(lines, events.SummaryOffered); n == offers {
			return
		}
	}
	t.Fatalf("no offer to summarize after ten long messages; bridge log:\n%s", mustRead(r.bridgeLog))
}

// pasteLongNote puts a note of about 500 characters that starts with head in the composer, as a
// user pastes a long text (typing it takes seven seconds a note), and waits until it is there.
func (r *desktopRun) pasteLongNote(t *testing.T, head string) {
	t.Helper()
	r.paste(t, []byte(head+strings.Repeat("lorem ipsum ", 40)), "")
	if !r.app.says(head + "lorem ipsum") {
		t.Fatalf("the note pasted (%q…) is not in the composer", head)
	}
}

// TestDesktopOlderMessagesOfferedThenSummarizedThenLeftOut: in a chat whose model has a small
// context, the window offers to summarize the messages that no longer fit; Alt+S has the model
// summarize them (the summary is painted in the chat); the next offer still waits after the app
// is quit and opened again, with the message sent while it waited, and Alt+O leaves them out,
// for the rest of the chat: the next message is not offered again. Both answers are kept with
// their runs.
func TestDesktopOlderMessagesOfferedThenSummarizedThenLeftOut(t *testing.T) {
	r := startDesktopRunWith(t, noterModel, store.Settings{ContextCap: 2048}, "") // room for the compact tools' definitions and a note
	r.sendUntilOffered(t, 1)
	r.app.waitControl(rolePushButton, "Summarize", 20*time.Second)
	r.app.waitControl(rolePushButton, "Leave out", 20*time.Second)
	r.app.screenshot("e2e-summary-offer.png")
	r.app.wantWindowName("1 chat waits for your answer") // the task bar says so too
	finished, _ := countLogged(readBridgeLog(t, r.bridgeLog), events.RunFinished)
	r.app.key("alt+s")
	lines := r.waitLogN(t, events.RunFinished, finished+1, true, 120*time.Second)
	// the summary is the first message the resumed run starts, and the window painted it
	_, answered := countLogged(lines, events.SummaryAnswered)
	var summarySeq uint64
	for _, l := range lines {
		for _, e := range l.Events {
			if summarySeq == 0 && e.Type == events.MessageStarted && e.Seq > answered && answered > 0 {
				summarySeq = e.Seq
			}
		}
	}
	painted := false
	for _, l := range lines {
		painted = painted || summarySeq > 0 && l.Kind == events.LogKindAck && l.Seq >= summarySeq
	}
	if !painted {
		t.Fatalf("the summary (seq %d) was not painted; bridge log:\n%s", summarySeq, bridgeLogText(lines))
	}
	r.app.screenshot("e2e-summary-made.png")

	// the next offer waits across a restart of the app, with the message sent while it waits,
	// and Alt+O leaves the older messages out
	r.sendUntilOffered(t, 2)
	started, _ := countLogged(readBridgeLog(t, r.bridgeLog), events.MessageStarted)
	r.app.typeText(keptWhileOffered)
	r.app.key("Return")
	r.waitLogN(t, events.MessageStarted, started+1, true, 20*time.Second)
	r.reopen(t, noterModel, "e2e-summary-reopened")
	r.app.waitControl(rolePushButton, "Leave out", 20*time.Second)
	if shown := r.app.textsWith(keptWhileOffered); len(shown) == 0 {
		t.Fatal("the message sent while the offer waited is not in the reopened chat")
	}
	r.app.screenshot("e2e-summary-offer-reopened.png")
	r.app.key("alt+o")
	lines = r.waitLogN(t, events.RunFinished, 1, true, 120*time.Second)
	if n, _ := countLogged(lines, events.ContextTruncated); n == 0 {
		t.Fatalf("leaving out said nothing; bridge log:\n%s", bridgeLogText(lines))
	}
	// the card says that the answer holds for the chat, and it does: the next message that
	// no longer fits is sent without its older messages, and without a new offer
	if said := r.app.textsWith("from now on this chat leaves out"); len(said) == 0 {
		t.Fatal("the answered card does not say that Leave out holds for the chat")
	}
	r.pasteLongNote(t, "Note after leaving out: ")
	r.app.key("Return")
	lines = r.waitLogN(t, events.RunFinished, 2, true, 120*time.Second)
	if offers, _ := countLogged(lines, events.SummaryOffered); offers != 0 {
		t.Fatalf("offered again after Leave out; bridge log:\n%s", bridgeLogText(lines))
	}
	if n, _ := countLogged(lines, events.ContextTruncated); n < 2 {
		t.Fatalf("the later message did not leave the older ones out; bridge log:\n%s", bridgeLogText(lines))
	}
	_, db := r.finish(t, "e2e-summary-left-out.png")
	chat := theOneChat(t, db)
	runs, _ := db.RunsOf(chat.ID)
	var choices []string
	for _, run := range runs {
		for _, n := range run.Notes {
			if n.Offer != nil {
				choices = append(choices, n.Offer.Choice)
			}
		}
	}
	if !slices.Equal(choices, []string{store.SummaryChoiceSummarize, store.SummaryChoiceLeaveOut}) {
		t.Fatalf("the offers' answers kept: %q", choices)
	}
	msgs, _ := db.Messages(chat.ID)
	summaries := 0
	for _, m := range msgs {
		if m.SummaryOf != "" && m.Content == "Noted." {
			summaries++
		}
	}
	if summaries != 1 {
		t.Fatalf("%d summaries stored, want 1", summaries)
	}
	if !slices.ContainsFunc(msgs, func(m store.Message) bool { return m.Content == keptWhileOffered }) {
		t.Fatal("the message sent while the offer waited was lost")
	}
}

// keptWhileOffered is the message sent while an offer waits for its answer.
const keptWhileOffered = "Keep this while you wait."

// seeingModel has the vision capability and says how many images a message brought it (the
// server hands it the images; an I in its trail for each). Without an image it waits on the
// reference MCP server's long operation, so that a message can be sent while it is busy.
var seeingModel = ollamatest.Model{Name: "e2e-seeing", Vision: true, Scripts: ollamatest.Scripts{
	"SU": slices.Concat(ollamatest.Think("Wait first."),
		ollamatest.ToolCall("mcp__everything__trigger-long-running-operation", map[string]any{"duration": 6, "steps": 3})),
	"SUI":    slices.Concat(ollamatest.Think("A picture."), []string{"I see one image", " in your message."}),
	"SUATUI": slices.Concat(ollamatest.Think("It came."), []string{"Your image", " came while I waited."}),
}}

// screenshotPNG is a small picture as a user copies one: 24×16 pixels, a red square on white.
func screenshotPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 24, 16))
	for y := range 16 {
		for x := range 24 {
			c := color.RGBA{255, 255, 255, 255}
			if x >= 4 && x < 12 && y >= 4 && y < 12 {
				c = color.RGBA{220, 30, 30, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pasteImage puts pic on the display's clipboard as image/png, as an image viewer's Copy
// does, and pastes it into the composer, which has the focus (Ctrl+V): the composer shows it
// as an attachment, found by its accessible name.
func (r *desktopRun) pasteImage(t *testing.T, pic []byte) {
	t.Helper()
	r.paste(t, pic, "image/png")
	r.app.waitControl(rolePushButton, "Remove image 1", 20*time.Second)
}

// sendAndRead types text into the composer and sends it with Enter, waits for the run to end,
// closes the window (a screenshot shotName first) and returns the messages of its one chat.
func (r *desktopRun) sendAndRead(t *testing.T, text, shotName string) []store.Message {
	t.Helper()
	r.app.typeText(text)
	r.app.key("Return")
	r.waitFinished(t, 90*time.Second)
	shot, db := r.finish(t, shotName)
	t.Logf("screenshot after the run: %s", shot)
	msgs, err := db.Messages(theOneChat(t, db).ID)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// TestDesktopAnImagePastedIntoTheComposerReachesAModelThatSees: an image copied to the
// clipboard is pasted into the composer (Ctrl+V), shown as an attachment, sent with the
// message through the real server to a model with vision, which says it got one image; the
// stored message keeps it.
func TestDesktopAnImagePastedIntoTheComposerReachesAModelThatSees(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, seeingModel, store.Settings{Think: "on"}, "")
	r.app.key("ctrl+n") // a new chat, the focus in the composer
	r.pasteImage(t, screenshotPNG(t))
	r.app.screenshot("e2e-image-pasted.png")
	msgs := r.sendAndRead(t, "What is in this picture?", "e2e-image-answered.png")
	if len(msgs) != 2 {
		t.Fatalf("messages %+v; want the user's and the answer", msgs)
	}
	if got := msgs[1].Content; got != "I see one image in your message." {
		t.Errorf("the answer %q: the model was not handed the pasted image", got)
	}
	if len(msgs[0].Images) != 1 {
		t.Fatalf("the stored message keeps %d images, want the pasted one", len(msgs[0].Images))
	}
	// the clipboard may hand the picture over re-encoded: the same picture, not the same bytes
	img, err := png.Decode(bytes.NewReader(msgs[0].Images[0]))
	if err != nil || img.Bounds().Dx() != 24 || img.Bounds().Dy() != 16 {
		t.Errorf("the stored image is no 24×16 PNG: %v", err)
	}
}

// TestDesktopAnImagePastedForAModelThatCannotSeeIsRefusedBeforeSending: the composer says the
// model cannot see images, Enter sends nothing, no chat is stored.
func TestDesktopAnImagePastedForAModelThatCannotSeeIsRefusedBeforeSending(t *testing.T) {
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	r.app.key("ctrl+n")
	r.pasteImage(t, screenshotPNG(t))
	r.app.typeSeen("What is in this picture?")
	// the composer refuses them itself, before asking the Go side: Send cannot be pressed
	if !r.app.says("cannot see images") {
		t.Errorf("the composer does not say the model cannot see the image: %s", r.app.screenshot("e2e-image-refused.png"))
	}
	if send := r.app.waitControl(rolePushButton, "Send", 10*time.Second); r.app.enabled(send) {
		t.Errorf("Send can be pressed with an image for a model that cannot see")
	}
	r.assertEnterSendsNothing(t, "e2e-image-refused.png")
}

// TestDesktopAnImagePastedWhileTheModelWorksWaitsWithItsMessageAndReachesTheModel: while a
// tool runs, a message with a pasted image is queued (not refused); the run gives it to the
// model after the tool's result, with its image, and the chat keeps it.
func TestDesktopAnImagePastedWhileTheModelWorksWaitsWithItsMessageAndReachesTheModel(t *testing.T) {
	settings := store.Settings{Think: "on", ToolApproval: map[string]string{"*": "auto"}}
	r := startDesktopRunWith(t, seeingModel, settings, "Wait a moment, with everything", withArgs("--mcp-config", mcpConfigFile(t)))
	r.waitLog(t, events.ToolCall, true, 90*time.Second)
	r.pasteImage(t, screenshotPNG(t))
	msgs := r.sendAndRead(t, "And this picture?", "e2e-image-queued-answered.png")
	if len(msgs) != 5 {
		t.Fatalf("messages %+v; want the first, the call, its result, the queued one and the answer", msgs)
	}
	if q := msgs[3]; q.Content != "And this picture?" || len(q.Images) != 1 {
		t.Errorf("the queued message %q keeps %d images, want its one", q.Content, len(q.Images))
	}
	if got := msgs[4].Content; got != "Your image came while I waited." {
		t.Errorf("the answer %q: the model was not handed the queued image", got)
	}
}
