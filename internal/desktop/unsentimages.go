package desktop

import (
	"encoding/base64"
	"fmt"

	"prototyper/agentloop"
)

// SaveDraftImages keeps the images (base64, as the box holds them) of a chat's box not sent yet
// ("" for the chat the window starts with its first message), beside its text, so that closing
// or killing the app loses none of them; none forgets them. Only images a message could carry
// are kept, the first [agentloop.MaxImages] of them: one the box should not hold (no image the
// models read, too large) does not stop the others being kept, and the Send of the box says
// what is wrong with it. An image past those is not even decoded.
func (d *Desktop) SaveDraftImages(chatID string, images []string) error {
	return d.db.SaveDraftImages(chatID, keepableImages(images))
}

// keepableImages is the first images (base64) a message could carry, decoded.
func keepableImages(images []string) [][]byte {
	var kept [][]byte
	for _, s := range images {
		if len(kept) == agentloop.MaxImages {
			break
		}
		if base64.StdEncoding.DecodedLen(len(s)) > agentloop.MaxImageBytes+2 {
			continue // too large, whatever it holds: not decoded
		}
		img, err := base64.StdEncoding.DecodeString(s)
		if err != nil || agentloop.CheckImages([][]byte{img}) != nil {
			continue
		}
		kept = append(kept, img)
	}
	return kept
}

// DraftImages returns the images (base64) of each chat's unsent text that has some, by chat id:
// those kept by the window, and those of queued messages a run never took.
func (d *Desktop) DraftImages() (map[string][]string, error) {
	kept, err := d.db.DraftImages()
	if err != nil {
		return nil, err
	}
	out := make(map[string][]string, len(kept))
	for id, images := range kept {
		for _, img := range images {
			out[id] = append(out[id], base64.StdEncoding.EncodeToString(img))
		}
	}
	return out, nil
}

// decodeImages reads images as the window sends them: base64.
func decodeImages(images []string) ([][]byte, error) {
	var raw [][]byte
	for i, s := range images {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("image %d could not be read: attach it again", i+1)
		}
		raw = append(raw, b)
	}
	return raw, nil
}
