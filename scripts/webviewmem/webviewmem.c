// webviewmem: what a WebKitGTK web view's web process keeps per script it is given, outside
// the app. A blank page is shown; N times a string of K bytes, unique each time, reaches it,
// and every S times the process's memory (smaps_rollup: Rss, Anonymous, Private_Dirty) is
// printed after the page allocated enough garbage for the collector to take the whole heap
// (run it with JSC_useGenerationalGC=0; this WebKit build exposes no call that collects).
//
// Modes, as the app's window can reach its page:
//   eval  a new script per delivery, the string in its text (what Wails' EventsEmit and its
//         binding results do: webkit_web_view_run_javascript("window.wails.EventsNotify('…')"))
//   same  one unchanging script, evaluated N times (the baseline)
//   call  one constant function body, the string passed as its argument
//         (webkit_web_view_call_async_javascript_function, WebKitGTK >= 2.40)
//   type  the string typed into a text box with execCommand('insertText') and the box emptied
//         (undo steps kept by the editor), set: the same with the value set
//   port  a message posted through one MessageChannel and received (how the page schedules
//         its work after a frame's paint, frontend/src/state/feed.ts afterRendering)
//   post  the string posted by the page to the message handler "external" (a binding call:
//         window.WailsInvoke), from a constant function called with it
//   wails a Wails round trip: a new script per delivery, given as Wails gives it
//         (webkit_web_view_run_javascript, no callback), that takes the string and posts an
//         acknowledgement to "external"; the next delivery goes once it is received
//   evalpost  the same with webkit_web_view_evaluate_javascript; postsame: one unchanging
//         script that posts the acknowledgement (no string delivered)
//   keys  "Question " and 8 letters of the string typed as keys, a press and a release each,
//         given to the window as GTK gets them from the X server (as a user types in the
//         app's message box), then the box emptied by setting its value (as the app does on
//         send); keysbody: the same keys with no box focused (nothing edited); keysnew: the
//         box replaced by a new one, focused, instead of emptied
//
// Measured (WebKitGTK 2.50.6, whole-heap collector, K=400, N=30000, S=3000; Anonymous MB at
// n=0, 3000, 30000): eval 183.7, 186.6, 183.4 (flat within ±2.5); postsame 185.1, 182.0,
// 188.4; evalpost 184.0, 192.2, 198.1; wails 184.9, 191.1, 194.9; post (N=6000) 182.2, 183.0,
// 182.1. A page that posts to the handler from a script the app evaluated keeps about 7 MB
// over the first 3,000 round trips and 0.1 to 0.2 KB each after; delivering alone, or
// posting alone, keeps nothing measurable. In the app's window that is within the noise of a
// long chat: a build that cut the deliveries of each answer about tenfold (the bridge cutting
// a batch every 300 ms) grew as much per answer as the build before it (150 answers,
// whole-heap collector: 0.083 against 0.087 MB an answer).
//
// Typing is what the web process keeps for good (S=250, N=1750, Anonymous MB at n=0, 500,
// 1750): keys 186.5, 193.7, 207.9: 11.4 KB a message of 17 keys, 0.67 KB a key typed, steady,
// never given back; keysbody 179.8, 181.7, 180.1 (1500): the keys alone keep nothing, the
// editing does; keysnew 185.5, 184.0, 212.8: a new box a message keeps more, not less.
// Neither emptying the box nor replacing it lets go of what was typed (the editor's undo
// steps, kept until the page is left, would fit; not confirmed). In the
// app's window, the same binary asked the same 150 answers with questions of 112 characters
// instead of 12 grew 0.152 against 0.139 MB an answer (floors of ten, answers 20 to 150) and
// 0.121 against 0.077 from the 50th: about 0.45 KB more a character typed.
//
//   gcc -O1 -o /tmp/webviewmem scripts/webviewmem/webviewmem.c $(pkg-config --cflags --libs gtk+-3.0 webkit2gtk-4.1)
//   NO_AT_BRIDGE=1 DBUS_SESSION_BUS_ADDRESS= JSC_useGenerationalGC=0 xvfb-run -a /tmp/webviewmem eval 3000 4000 500
//   NO_AT_BRIDGE=1 DBUS_SESSION_BUS_ADDRESS= JSC_useGenerationalGC=0 xvfb-run -a /tmp/webviewmem keys 1750 400 250
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static WebKitWebView *view;
static const char *mode;
static int total, size, every, done;
static char *payload;

// webPid is the web process this program started.
static int webPid(void) {
	DIR *d = opendir("/proc");
	struct dirent *e;
	int me = getpid(), found = 0;
	while ((e = readdir(d))) {
		int pid = atoi(e->d_name);
		if (pid <= 0) continue;
		char p[64], buf[512];
		snprintf(p, sizeof p, "/proc/%d/stat", pid);
		FILE *f = fopen(p, "r");
		if (!f) continue;
		if (fgets(buf, sizeof buf, f)) {
			char *r = strrchr(buf, ')'), st;
			int ppid = 0;
			if (r && sscanf(r + 2, "%c %d", &st, &ppid) == 2 && ppid == me && strstr(buf, "(WebKitWebProces")) found = pid;
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

static long field(const char *file, const char *name) {
	FILE *f = fopen(file, "r");
	char line[256];
	long v = -1;
	if (!f) return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, name, strlen(name))) {
			v = atol(line + strlen(name));
			break;
		}
	fclose(f);
	return v;
}

static void sample(void) {
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/smaps_rollup", webPid());
	printf("%s n=%d K=%d rss_kb=%ld anon_kb=%ld privdirty_kb=%ld\n", mode, done, size, field(p, "Rss:"),
		field(p, "Anonymous:"), field(p, "Private_Dirty:"));
	fflush(stdout);
}

static void next(void);
static gboolean nextIdle(gpointer d) {
	next();
	return G_SOURCE_REMOVE;
}

static void collected(GObject *o, GAsyncResult *r, gpointer d) {
	JSCValue *v = webkit_web_view_evaluate_javascript_finish(view, r, NULL);
	if (v) g_object_unref(v);
	sample();
	if (done >= total) {
		gtk_main_quit();
		return;
	}
	g_idle_add(nextIdle, NULL);
}

// collect makes the page allocate about 30 MB of objects three times, which the whole-heap
// collector answers with collections of the whole heap.
static gboolean collect(gpointer d) {
	webkit_web_view_evaluate_javascript(view,
		"(function(){for(var r=0;r<3;r++){var a=[];for(var i=0;i<300000;i++)a.push({i:i,s:'x'+i});}return 1})()", -1,
		NULL, NULL, NULL, collected, NULL);
	return G_SOURCE_REMOVE;
}

static int calls(void) { return strncmp(mode, "keys", 4) && strcmp(mode, "eval") && strcmp(mode, "same") && strcmp(mode, "wails") && strcmp(mode, "evalpost") && strcmp(mode, "postsame"); }

static void delivered(GObject *o, GAsyncResult *r, gpointer d) {
	GError *err = NULL;
	JSCValue *v = calls() ? webkit_web_view_call_async_javascript_function_finish(view, r, &err)
			      : webkit_web_view_evaluate_javascript_finish(view, r, &err);
	if (err) {
		fprintf(stderr, "%s\n", err->message);
		exit(1);
	}
	if (v) g_object_unref(v);
	if (++done % every == 0) g_timeout_add(300, collect, NULL);
	else g_idle_add(nextIdle, NULL);
}

// fill writes the i-th string: its number, then words of letters that vary with it.
static void fill(int i) {
	int n = snprintf(payload, size + 1, "%d:", i);
	for (int j = n; j < size; j++) payload[j] = (j % 7 == 6) ? ' ' : 'a' + (i * 7 + j) % 26;
	payload[size] = 0;
}

// received is the UI process's end of the message handler "external", as Wails reads it: the
// message's string. In wails mode it is what says a delivery reached the page.
static void received(WebKitUserContentManager *m, WebKitJavascriptResult *r, gpointer d) {
	JSCValue *v = webkit_javascript_result_get_js_value(r);
	g_free(jsc_value_to_string(v));
	if (strcmp(mode, "wails") && strcmp(mode, "evalpost") && strcmp(mode, "postsame")) return;
	if (++done % every == 0) g_timeout_add(300, collect, NULL);
	else g_idle_add(nextIdle, NULL);
}

// key sends one key press and its release of the character c to the window, as GTK gets them
// from the X server, so the page sees them through WebKit's input path as typed keys.
static void key(GtkWidget *top, guint c) {
	GdkSeat *seat = gdk_display_get_default_seat(gdk_display_get_default());
	GdkKeymapKey *keys = NULL;
	gint n = 0;
	guint keyval = gdk_unicode_to_keyval(c);
	gdk_keymap_get_entries_for_keyval(gdk_keymap_get_for_display(gdk_display_get_default()), keyval, &keys, &n);
	for (int t = 0; t < 2; t++) {
		GdkEvent *e = gdk_event_new(t ? GDK_KEY_RELEASE : GDK_KEY_PRESS);
		e->key.window = g_object_ref(gtk_widget_get_window(top));
		e->key.send_event = TRUE;
		e->key.time = GDK_CURRENT_TIME;
		e->key.keyval = keyval;
		e->key.hardware_keycode = n ? keys[0].keycode : 0;
		e->key.state = (n && keys[0].level) ? GDK_SHIFT_MASK : 0;
		gdk_event_set_device(e, gdk_seat_get_keyboard(seat));
		gtk_main_do_event(e);
		gdk_event_free(e);
	}
	g_free(keys);
}

static void cleared(GObject *o, GAsyncResult *r, gpointer d) {
	JSCValue *v = webkit_web_view_evaluate_javascript_finish(view, r, NULL);
	// the first deliveries say how many characters reached the box (17 when every key did)
	if (v && done < 3) printf("keys: the box held %d characters\n", jsc_value_to_int32(v));
	if (v) g_object_unref(v);
	if (++done % every == 0) g_timeout_add(300, collect, NULL);
	else g_idle_add(nextIdle, NULL);
}

// clear empties the box once the keys typed reached it.
static gboolean clear(gpointer d) {
	webkit_web_view_evaluate_javascript(view, !strcmp(mode, "keysnew")
		? "var t=document.getElementById('t'),n=t.value.length,u=document.createElement('textarea');u.id='t';t.replaceWith(u);u.focus();n"
		: "var t=document.getElementById('t'),n=t.value.length;t.value='';n", -1, NULL, NULL, NULL, cleared, NULL);
	return G_SOURCE_REMOVE;
}

static void next(void) {
	fill(done);
	if (!strncmp(mode, "keys", 4)) {
		GtkWidget *top = gtk_widget_get_toplevel(GTK_WIDGET(view));
		char text[32];
		snprintf(text, sizeof text, "Question %.*s", size < 8 ? size : 8, payload);
		for (char *c = text; *c; c++) key(top, (guchar)*c);
		g_timeout_add(60, clear, NULL);
		return;
	}
	if (!strcmp(mode, "wails") || !strcmp(mode, "evalpost") || !strcmp(mode, "postsame")) {
		GString *js = g_string_new(NULL);
		if (!strcmp(mode, "postsame")) g_string_assign(js, "window.webkit.messageHandlers.external.postMessage('ack');");
		else g_string_printf(js, "window.__sink('%s');window.webkit.messageHandlers.external.postMessage('ack '+window.__n);", payload);
		G_GNUC_BEGIN_IGNORE_DEPRECATIONS
		if (!strcmp(mode, "wails")) webkit_web_view_run_javascript(view, js->str, NULL, NULL, NULL);
		else webkit_web_view_evaluate_javascript(view, js->str, -1, NULL, NULL, NULL, NULL, NULL);
		G_GNUC_END_IGNORE_DEPRECATIONS
		g_string_free(js, TRUE);
		return;
	}
	if (calls()) {
		const char *body = !strcmp(mode, "port")
			? "return new Promise(function(res){if(!window.__ch){window.__ch=new MessageChannel();window.__q=[];"
			  "window.__ch.port1.onmessage=function(){window.__q.shift()()}}window.__q.push(res);window.__ch.port2.postMessage(null)});"
			: !strcmp(mode, "call") ? "window.__sink(s);"
			: !strcmp(mode, "post") ? "window.webkit.messageHandlers.external.postMessage(s);"
			: !strcmp(mode, "type") ? "var t=document.getElementById('t');t.focus();document.execCommand('insertText',false,'Question '+s.slice(0,8));t.value='';"
			: "var t=document.getElementById('t');t.focus();t.value='Question '+s.slice(0,8);t.value='';";
		GVariantDict args;
		g_variant_dict_init(&args, NULL);
		g_variant_dict_insert(&args, "s", "s", payload);
		webkit_web_view_call_async_javascript_function(view, body, -1, g_variant_dict_end(&args), NULL, NULL, NULL, delivered, NULL);
		return;
	}
	GString *js = g_string_new(NULL);
	if (!strcmp(mode, "same")) g_string_assign(js, "window.__sink('x');");
	else g_string_printf(js, "window.__sink('%s');", payload);
	webkit_web_view_evaluate_javascript(view, js->str, -1, NULL, NULL, NULL, delivered, NULL);
	g_string_free(js, TRUE);
}

static void loaded(WebKitWebView *v, WebKitLoadEvent ev, gpointer d) {
	if (ev != WEBKIT_LOAD_FINISHED) return;
	gtk_widget_grab_focus(GTK_WIDGET(view));
	if (strcmp(mode, "keysbody")) webkit_web_view_evaluate_javascript(view, "document.getElementById('t').focus()", -1, NULL, NULL, NULL, NULL, NULL);
	g_timeout_add(500, collect, NULL);
}

int main(int argc, char **argv) {
	gtk_init(&argc, &argv);
	if (argc != 5) {
		fprintf(stderr, "usage: webviewmem eval|same|call|post|wails|evalpost|postsame|keys|type|set|port N K S\n");
		return 2;
	}
	mode = argv[1], total = atoi(argv[2]), size = atoi(argv[3]), every = atoi(argv[4]);
	payload = malloc(size + 16);
	GtkWidget *w = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_default_size(GTK_WINDOW(w), 800, 600);
	WebKitUserContentManager *ucm = webkit_user_content_manager_new();
	webkit_user_content_manager_register_script_message_handler(ucm, "external");
	g_signal_connect(ucm, "script-message-received::external", G_CALLBACK(received), NULL);
	view = WEBKIT_WEB_VIEW(webkit_web_view_new_with_user_content_manager(ucm));
	gtk_container_add(GTK_CONTAINER(w), GTK_WIDGET(view));
	g_signal_connect(view, "load-changed", G_CALLBACK(loaded), NULL);
	webkit_web_view_load_html(view,
		"<html><body><textarea id=t></textarea><script>window.__n=0;window.__sink=function(s){window.__n+=s.length}</script></body></html>",
		"http://localhost/");
	gtk_widget_show_all(w);
	gtk_main();
	return 0;
}
