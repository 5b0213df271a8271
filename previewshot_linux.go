//go:build linux

package main

/*
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

extern void previewShotDone(guint id, unsigned char *data, int width, int height, int stride, int opaque, char *err);

extern WebKitWebView *windowWebView(void);

// shotTaken hands the snapshot's 32-bit pixels (cairo's ARGB32: premultiplied, native endian)
// to Go, which copies them before the surface is freed.
static void shotTaken(GObject *src, GAsyncResult *res, gpointer data) {
	guint id = GPOINTER_TO_UINT(data);
	GError *err = NULL;
	cairo_surface_t *s = webkit_web_view_get_snapshot_finish(WEBKIT_WEB_VIEW(src), res, &err);
	if (!s) {
		previewShotDone(id, NULL, 0, 0, 0, 0, err ? err->message : "no snapshot");
		if (err) g_error_free(err);
		return;
	}
	// whatever kind of surface WebKit made, its pixels as an image surface
	cairo_surface_t *img = cairo_surface_map_to_image(s, NULL);
	cairo_surface_flush(img);
	cairo_format_t f = cairo_image_surface_get_format(img);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS || (f != CAIRO_FORMAT_ARGB32 && f != CAIRO_FORMAT_RGB24)) {
		previewShotDone(id, NULL, 0, 0, 0, 0, "the snapshot has no pixels to read");
	} else {
		previewShotDone(id, cairo_image_surface_get_data(img), cairo_image_surface_get_width(img),
			cairo_image_surface_get_height(img), cairo_image_surface_get_stride(img),
			cairo_image_surface_get_format(img) == CAIRO_FORMAT_RGB24, NULL);
	}
	cairo_surface_unmap_image(s, img);
	cairo_surface_destroy(s);
}

static gboolean takeShot(gpointer data) {
	WebKitWebView *view = windowWebView();
	if (!view) previewShotDone(GPOINTER_TO_UINT(data), NULL, 0, 0, 0, 0, "the window has no web view");
	else webkit_web_view_get_snapshot(view, WEBKIT_SNAPSHOT_REGION_VISIBLE, WEBKIT_SNAPSHOT_OPTIONS_NONE, NULL, shotTaken, data);
	return G_SOURCE_REMOVE;
}

static void scheduleShot(guint id) { g_idle_add(takeShot, GUINT_TO_POINTER(id)); }
*/
import "C"

import (
	"fmt"
	"sync"
	"time"
	"unsafe"
)

// The preview's screenshot. The Preview pane's frame is another origin, so the window's script
// cannot draw it; the web view itself can: WebKitGTK's snapshot of what it shows, taken on the
// GTK main loop like the bindings guard, is cropped in Go to the frame's rectangle.

// snapshot is the web view's visible area: cairo ARGB32 rows (B, G, R, A bytes on a
// little-endian machine, premultiplied; the A byte means nothing when opaque).
type snapshot struct {
	pix                   []byte
	width, height, stride int
	opaque                bool
	err                   error
}

var shots struct {
	mu      sync.Mutex
	next    uint
	waiting map[uint]chan snapshot
}

//export previewShotDone
func previewShotDone(id C.guint, data *C.uchar, width, height, stride, opaque C.int, errText *C.char) {
	var s snapshot
	if data == nil {
		s.err = fmt.Errorf("%s", C.GoString(errText))
	} else {
		s = snapshot{pix: C.GoBytes(unsafe.Pointer(data), height*stride), width: int(width), height: int(height), stride: int(stride), opaque: opaque != 0}
	}
	shots.mu.Lock()
	ch := shots.waiting[uint(id)]
	delete(shots.waiting, uint(id))
	shots.mu.Unlock()
	if ch != nil {
		ch <- s
	}
}

// snapshotTimeout bounds the wait for the main loop and the web process: a window too busy
// to paint for that long gets a sentence, not a stuck button.
const snapshotTimeout = 15 * time.Second

// takeSnapshot asks the web view for a snapshot of its visible area and waits for it.
func takeSnapshot() (snapshot, error) {
	ch := make(chan snapshot, 1)
	shots.mu.Lock()
	if shots.waiting == nil {
		shots.waiting = map[uint]chan snapshot{}
	}
	shots.next++
	id := shots.next
	shots.waiting[id] = ch
	shots.mu.Unlock()
	C.scheduleShot(C.guint(id))
	select {
	case s := <-ch:
		if s.err != nil {
			return s, fmt.Errorf("%w (%v)", errNoShot, s.err)
		}
		return s, nil
	case <-time.After(snapshotTimeout):
		shots.mu.Lock()
		delete(shots.waiting, id)
		shots.mu.Unlock()
		return snapshot{}, fmt.Errorf("%w (the window did not answer within %s)", errNoShot, snapshotTimeout)
	}
}
