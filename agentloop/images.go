package agentloop

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"prototyper/model"
)

// Images in a message: sent to a model that can see them (Ollama's `images` of the user's
// message), refused before anything is stored for one that cannot.

// MaxImageBytes caps one image of a message: larger ones are photos to shrink first.
const MaxImageBytes = 20 << 20

// MaxImages caps the images of one message.
const MaxImages = 8

// ErrNoVision is matched by a [*NoVisionError]: the message has images and the run's model
// cannot see them (the server says so); nothing was stored.
var ErrNoVision = errors.New("the model cannot see images")

// ErrBadImage is returned (wrapped, with a sentence) for an attachment that is no image the
// models read (PNG, JPEG, GIF, WebP), or too large, or one too many.
var ErrBadImage = errors.New("not an image the model can read")

// NoVisionError names a model that cannot see images.
type NoVisionError struct{ Model string }

func (e *NoVisionError) Error() string {
	return fmt.Sprintf("%s cannot see images: remove them, or pick a model that can (the model menu marks them “vision”; `prototyper models` lists them)", e.Model)
}

// Is matches ErrNoVision.
func (e *NoVisionError) Is(target error) bool { return target == ErrNoVision }

// checkImages refuses images a model could not read, before anything is stored.
func (a *Agent) checkImages(ctx context.Context, modelName string, images [][]byte) error {
	if len(images) == 0 {
		return nil
	}
	if err := CheckImages(images); err != nil {
		return err
	}
	if vs, ok := a.cfg.Model.(model.VisionSupport); ok {
		if can, known := vs.SupportsVision(ctx, modelName); known && !can {
			return &NoVisionError{Model: modelName}
		}
	}
	return nil
}

// CheckImages refuses images no message could carry, whatever its model: too many, too large,
// or no PNG, JPEG, GIF or WebP ([ErrBadImage], with the sentence to show). What the store keeps
// of a message not sent yet is bounded by it too.
func CheckImages(images [][]byte) error {
	if len(images) > MaxImages {
		return fmt.Errorf("%w: a message takes at most %d images; send the others in another message", ErrBadImage, MaxImages)
	}
	for i, img := range images {
		if len(img) > MaxImageBytes {
			return fmt.Errorf("%w: image %d is %d MB; shrink it below %d MB", ErrBadImage, i+1, len(img)>>20, MaxImageBytes>>20)
		}
		switch http.DetectContentType(img) {
		case "image/png", "image/jpeg", "image/gif", "image/webp":
		default:
			return fmt.Errorf("%w: attachment %d is no PNG, JPEG, GIF or WebP image", ErrBadImage, i+1)
		}
	}
	return nil
}
