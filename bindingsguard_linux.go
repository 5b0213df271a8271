//go:build linux

package main

/*
#include <stdlib.h>
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

extern void bindingsGuardDone(int ok);

// The world the window's bindings travel through once the guard is armed: its script runs in
// the window's own frame only, and only it can post to the app's message handler.
static const char *guardWorld = "prototyper-bindings";

// guardJS runs in that world of the top frame: it carries to the handler what the window's
// page (src/ipcBridge.ts) dispatches on its document. Frames of other origins cannot reach
// that document, and this script is not in them.
static const char *guardJS =
	"(function(){if(window.__prototyperBridge)return;window.__prototyperBridge=true;"
	"document.addEventListener('prototyper-ipc',function(e){var m=e.detail;if(typeof m!=='string')return;"
	"var tries=0;(function post(){var h=window.webkit&&window.webkit.messageHandlers&&window.webkit.messageHandlers.external;"
	"if(h){h.postMessage(m);return}if(++tries<50)setTimeout(post,10)})()})})();";

extern WebKitWebView *windowWebView(void);

static gboolean armGuard(gpointer data) {
	WebKitWebView *view = windowWebView();
	if (!view) {
		bindingsGuardDone(0);
		return G_SOURCE_REMOVE;
	}
	WebKitUserContentManager *ucm = webkit_web_view_get_user_content_manager(view);
	// the next documents of the top frame (a reload) get the bridge from the start
	WebKitUserScript *s = webkit_user_script_new_for_world(guardJS, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME,
		WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, guardWorld, NULL, NULL);
	webkit_user_content_manager_add_script(ucm, s);
	webkit_user_script_unref(s);
	// the document shown gets it now; the calls below reach the page after it, in order
	webkit_web_view_evaluate_javascript(view, guardJS, -1, guardWorld, NULL, NULL, NULL, NULL);
	// the handler leaves the page's world, where every frame of every origin could post to it
	webkit_user_content_manager_unregister_script_message_handler(ucm, "external");
	gboolean ok = webkit_user_content_manager_register_script_message_handler_in_world(ucm, "external", guardWorld);
	bindingsGuardDone(ok ? 1 : 0);
	return G_SOURCE_REMOVE;
}

static void scheduleGuard(void) { g_idle_add(armGuard, NULL); }
*/
import "C"

import (
	"errors"
	"sync"
)

// The bindings guard. On Linux, Wails takes the window's calls of the bound methods from a
// WebKit message handler named "external" registered in the page's world, which every frame
// of the web view sees, whatever its origin: a page in the Preview pane's frame could post to
// it, and Wails, which checks the web view's address rather than the frame's, would run the
// call. Before the first preview is shown, the guard moves that handler into a world of its
// own whose one script runs in the window's top frame only; the window's page reaches it
// through an event on its own document (frontend/src/ipcBridge.ts), which no other origin can
// dispatch. Wails' handler of the signal is untouched: it sees the same messages from the
// window, and none from a frame.

var guard struct {
	once sync.Once
	done chan bool
	err  error
}

//export bindingsGuardDone
func bindingsGuardDone(ok C.int) {
	guard.done <- ok != 0
}

// errNoGuard is returned when the guard could not be armed: the preview is then not shown.
var errNoGuard = errors.New("the preview cannot be shown: the window could not keep pages away from the app's bindings")

// guardBindings arms the guard once, on the window's main loop, and returns when it is armed.
func guardBindings() error {
	guard.once.Do(func() {
		guard.done = make(chan bool, 1)
		C.scheduleGuard()
		if !<-guard.done {
			guard.err = errNoGuard
		}
	})
	return guard.err
}
