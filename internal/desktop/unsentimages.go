package desktop

import (
	"encoding/base64"
	"fmt"

	"prototyper/agentloop"
)

// SaveDraftImages keeps the images (base64, as the box holds them) of a chat's box not sent yet
// ("" for the chat the window starts with its first message), beside its text, so that closing
// or killing the app loses none of them; none forgets them. Images no message could carry are
// refused with the sentence a Send of them would get, and nothing is kept.
func (d *Desktop) SaveDraftImages(chatID string, images []string) error {
	raw, err := decodeImages(images)
	if err != nil {
		return err
	}
	if err := agentloop.CheckImages(raw); err != nil {
		return err
	}
	return d.db.SaveDraftImages(chatID, raw)
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
