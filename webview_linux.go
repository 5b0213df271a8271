//go:build linux

package main

/*
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

static WebKitWebView *findWebView(GtkWidget *w) {
	if (WEBKIT_IS_WEB_VIEW(w)) return WEBKIT_WEB_VIEW(w);
	if (!GTK_IS_CONTAINER(w)) return NULL;
	GList *children = gtk_container_get_children(GTK_CONTAINER(w));
	WebKitWebView *found = NULL;
	for (GList *l = children; l && !found; l = l->next) found = findWebView(GTK_WIDGET(l->data));
	g_list_free(children);
	return found;
}

// windowWebView is the web view of the app's window, NULL while there is none. It is defined
// here, in a file that exports nothing to C, so that the files that do (the bindings guard,
// the preview's screenshot) can declare and share it. GTK's thread only.
WebKitWebView *windowWebView(void) {
	GList *tops = gtk_window_list_toplevels();
	WebKitWebView *view = NULL;
	for (GList *l = tops; l && !view; l = l->next) view = findWebView(GTK_WIDGET(l->data));
	g_list_free(tops);
	return view;
}
*/
import "C"
