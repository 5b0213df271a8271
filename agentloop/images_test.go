package agentloop

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// tinyPNG is a 2×2 PNG.
func tinyPNG(t testing.TB) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func showCapabilities(caps ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, _ := json.Marshal(caps)
		fmt.Fprintf(w, `{"model_info":{"general.architecture":"llama","llama.context_length":8192},"capabilities":%s}`, c)
	}
}

func TestImagesReachTheRequestOfAModelThatSeesThem(t *testing.T) {
	s := newStubOllama(t, showCapabilities("completion", "tools", "vision"), ndjson("A red dot."))
	a, db, _ := fakeHarness(t, model.NewOllama(s.client()), nil)
	pic := tinyPNG(t)
	out, err := a.RunOnce(context.Background(), "", "what is this?", RunOptions{Images: [][]byte{pic}})
	if err != nil {
		t.Fatal(err)
	}
	if role, images := lastMessageSent(t, s.chatBody(0)); role != "user" || len(images) != 1 || images[0] != base64.StdEncoding.EncodeToString(pic) {
		t.Fatalf("the user message of the request: %s with %d images", role, len(images))
	}
	msgs, _ := db.Messages(out.ChatID)
	if len(msgs[0].Images) != 1 || !bytes.Equal(msgs[0].Images[0], pic) {
		t.Fatalf("the stored message does not keep its image")
	}
}

func TestImagesAreRefusedBeforeSendingForAModelThatCannotSeeThem(t *testing.T) {
	s := newStubOllama(t, showCapabilities("completion", "tools"), ndjson("never"))
	a, db, _ := fakeHarness(t, model.NewOllama(s.client()), nil)
	_, err := a.SendImages(context.Background(), "", store.Chat{}, "what is this?", [][]byte{tinyPNG(t)})
	if !errors.Is(err, ErrNoVision) || err.Error() != "fake cannot see images: remove them, or pick a model that can (the model menu marks them “vision”; `prototyper models` lists them)" {
		t.Fatalf("err = %v", err)
	}
	if s.count("/api/chat") != 0 {
		t.Fatal("a request went out")
	}
	noChats(t, db)
}

func TestAnAttachmentThatIsNoImageIsRefused(t *testing.T) {
	s := newStubOllama(t, showCapabilities("completion", "tools", "vision"), ndjson("never"))
	a, db, _ := fakeHarness(t, model.NewOllama(s.client()), nil)
	_, err := a.SendImages(context.Background(), "", store.Chat{}, "what is this?", [][]byte{[]byte("#!/bin/sh\nrm -rf /\n")})
	if !errors.Is(err, ErrBadImage) {
		t.Fatalf("err = %v", err)
	}
	noChats(t, db)
}

func TestImagesReachTheModelThroughTheRealServer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "seeing", approve: ApproveAuto})
	pic := tinyPNG(t)
	out := h.runOnce(t, "what are these?", RunOptions{Images: [][]byte{pic, pic}})
	msgs := h.messages(t, out.ChatID)
	if last := msgs[len(msgs)-1]; last.Content != "I see two images." {
		t.Fatalf("the answer %q: the model was not handed the two images", last.Content)
	}
	if len(msgs[0].Images) != 2 || !bytes.Equal(msgs[0].Images[1], pic) {
		t.Fatalf("the stored message keeps %d images, want both", len(msgs[0].Images))
	}
}

func TestImagesAreRefusedBeforeSendingForAModelOfTheRealServerThatCannotSee(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "scripted", approve: ApproveAuto})
	_, err := h.agent.SendImages(context.Background(), "", store.Chat{}, "what is this?", [][]byte{tinyPNG(t)})
	var nv *NoVisionError
	if !errors.As(err, &nv) || nv.Model != "scripted" {
		t.Fatalf("err = %v, want the sentence naming the model that cannot see", err)
	}
	noChats(t, h.db)
	if evs := h.rec.events(); len(ofType(evs, events.RunStarted)) != 0 {
		t.Fatalf("a run started: %s", summary(evs))
	}
}

func TestImagesSentWhileTheRunIsBusyWaitInTheQueueAndReachTheModelWithTheirMessage(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, harnessOptions{model: "seeing", approve: ApproveAuto, extra: []tools.Tool{waitTool(release)}})
	pic := tinyPNG(t)
	h.rec.react = func(e events.Event) {
		if e.Type != events.ToolCall || e.State != events.ToolStateRunning || e.Name != "wait" {
			return
		}
		defer close(release)
		if _, err := h.agent.SendImages(context.Background(), e.ChatID, store.Chat{}, "and this?", [][]byte{pic}); err != nil {
			t.Errorf("images sent while the run is busy: %v, want them queued", err)
		}
		if q := h.agent.Queued(e.ChatID); len(q) != 1 || q[0] != "and this?" {
			t.Errorf("queued = %q", q)
		}
	}
	out := h.runCompleted(t, "wait for my picture")
	msgs := h.messages(t, out.ChatID)
	if roles(msgs) != "UATUA" {
		t.Fatalf("messages %+v: want the queued message injected after the tool's result", msgs)
	}
	if q := msgs[3]; q.Content != "and this?" || len(q.Images) != 1 || !bytes.Equal(q.Images[0], pic) {
		t.Errorf("the injected message %q keeps %d images, want its one", q.Content, len(q.Images))
	}
	if last := msgs[4]; last.Content != "Your image came while I waited." {
		t.Errorf("the answer %q: the model was not handed the queued image", last.Content)
	}
}

func TestImagesSentAfterTheLastSafePointGoWithTheirMessageIntoTheFollowUpRun(t *testing.T) {
	pic := tinyPNG(t)
	var seen [][]byte
	db, id := sendAfterStop(t, func(last store.Message) model.Turn { seen = last.Images; return answer("seen") },
		func(a *Agent, id string) error {
			_, err := a.SendImages(context.Background(), id, store.Chat{}, "and this", [][]byte{pic})
			return err
		})
	msgs, _ := db.Messages(id)
	var q store.Message
	for _, m := range msgs {
		if m.Content == "and this" {
			q = m
		}
	}
	if len(q.Images) != 1 || !bytes.Equal(q.Images[0], pic) {
		t.Fatalf("the follow-up's message keeps %d images, want its one", len(q.Images))
	}
	if len(seen) != 1 || !bytes.Equal(seen[0], pic) {
		t.Errorf("the follow-up's request carried %d images, want the message's one", len(seen))
	}
}

// A message with images queued while the run works is kept with its images, and a Stop gives
// them back to the chat's box in the store with its text: a window killed right after finds both.
func TestAStopGivesAQueuedMessagesImagesBackWithItsText(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "seeing", approve: ApproveAuto, extra: []tools.Tool{waitTool(make(chan struct{}))}})
	pic := tinyPNG(t)
	var keptQueued [][][]byte
	whenWaitRuns(h, nil, func(chatID string) {
		if _, err := h.agent.SendImages(context.Background(), chatID, store.Chat{}, "and this?", [][]byte{pic}); err != nil {
			t.Error(err)
		}
		keptQueued, _ = h.db.QueuedImages(chatID)
		if err := h.agent.Stop(chatID); err != nil {
			t.Error(err)
		}
	})
	out := h.runOnce(t, "wait for my picture", RunOptions{})
	if out.StopReason != events.StopAborted {
		t.Fatalf("stop reason %q, want aborted", out.StopReason)
	}
	if len(keptQueued) != 1 || len(keptQueued[0]) != 1 || !bytes.Equal(keptQueued[0][0], pic) {
		t.Errorf("kept while queued: %d messages' images; want the queued message's one", len(keptQueued))
	}
	if d, _ := h.db.Drafts(); d[out.ChatID] != "and this?" {
		t.Errorf("unsent text %q, want the queued message", d[out.ChatID])
	}
	if d, _ := h.db.DraftImages(); len(d[out.ChatID]) != 1 || !bytes.Equal(d[out.ChatID][0], pic) {
		t.Errorf("unsent images %d, want the queued message's one", len(d[out.ChatID]))
	}
	if q, _ := h.db.QueuedImages(out.ChatID); len(q) != 0 {
		t.Errorf("images kept as queued after the Stop: %d", len(q))
	}
}

// Regenerating an answer resends its question, text and images: a model asked "what is
// this?" again without the picture answers another question.
func TestRegeneratingAQuestionWithImagesSendsItsImagesAgain(t *testing.T) {
	s := newStubOllama(t, showCapabilities("completion", "tools", "vision"), ndjson("A red dot."))
	a, db, rec := fakeHarness(t, model.NewOllama(s.client()), nil)
	pic := tinyPNG(t)
	out, err := a.RunOnce(context.Background(), "", "what is this?", RunOptions{Images: [][]byte{pic}})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := db.Messages(out.ChatID)
	if err := a.EditAndResend(context.Background(), out.ChatID, msgs[0].ID, msgs[0].Content); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the regenerated answer's run to end", finished(2))
	if role, images := lastMessageSent(t, s.chatBody(1)); role != "user" || len(images) != 1 || images[0] != base64.StdEncoding.EncodeToString(pic) {
		t.Fatalf("the regenerated question as sent: %s with %d images, want its image", role, len(images))
	}
	msgs, _ = db.Messages(out.ChatID)
	if len(msgs[0].Images) != 1 || !bytes.Equal(msgs[0].Images[0], pic) {
		t.Fatalf("the regenerated question as stored keeps %d images, want its one", len(msgs[0].Images))
	}
}

// lastMessageSent is the role and the images of the last message of a chat request's body.
func lastMessageSent(t *testing.T, body []byte) (role string, images []string) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role   string   `json:"role"`
			Images []string `json:"images"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		t.Fatalf("a chat request of no messages (%v): %s", err, body)
	}
	last := req.Messages[len(req.Messages)-1]
	return last.Role, last.Images
}
