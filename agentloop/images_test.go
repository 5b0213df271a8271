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

	"prototyper/store"
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
	a, db, _ := fakeHarness(t, NewOllamaModel(s.client()), nil)
	pic := tinyPNG(t)
	out, err := a.RunOnce(context.Background(), "", "what is this?", RunOptions{Images: [][]byte{pic}})
	if err != nil {
		t.Fatal(err)
	}
	var req struct {
		Messages []struct {
			Role   string   `json:"role"`
			Images []string `json:"images"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(s.chatBody(0), &req); err != nil {
		t.Fatal(err)
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != "user" || len(last.Images) != 1 || last.Images[0] != base64.StdEncoding.EncodeToString(pic) {
		t.Fatalf("the user message of the request: %+v", last)
	}
	msgs, _ := db.Messages(out.ChatID)
	if len(msgs[0].Images) != 1 || !bytes.Equal(msgs[0].Images[0], pic) {
		t.Fatalf("the stored message does not keep its image")
	}
}

func TestImagesAreRefusedBeforeSendingForAModelThatCannotSeeThem(t *testing.T) {
	s := newStubOllama(t, showCapabilities("completion", "tools"), ndjson("never"))
	a, db, _ := fakeHarness(t, NewOllamaModel(s.client()), nil)
	_, err := a.SendImages(context.Background(), "", store.Chat{}, "what is this?", [][]byte{tinyPNG(t)})
	if !errors.Is(err, ErrNoVision) || err.Error() != "fake cannot see images: remove them, or pick a model with the vision capability (`prototyper models` shows which)" {
		t.Fatalf("err = %v", err)
	}
	if s.count("/api/chat") != 0 {
		t.Fatal("a request went out")
	}
	noChats(t, db)
}

func TestAnAttachmentThatIsNoImageIsRefused(t *testing.T) {
	s := newStubOllama(t, showCapabilities("completion", "tools", "vision"), ndjson("never"))
	a, db, _ := fakeHarness(t, NewOllamaModel(s.client()), nil)
	_, err := a.SendImages(context.Background(), "", store.Chat{}, "what is this?", [][]byte{[]byte("#!/bin/sh\nrm -rf /\n")})
	if !errors.Is(err, ErrBadImage) {
		t.Fatalf("err = %v", err)
	}
	noChats(t, db)
}
