// Package preview is the preview room: an HTTP server on the loopback address that serves
// the web pages of a workspace to the window's Preview pane, and keeps what those pages
// report (errors, failed loads, console output) for the pane and for the agent.
//
// # Basics
//
// A [Server] answers only under a secret path prefix made at start (a request without it is
// a 404): a page of the machine that guesses a port still cannot read the workspace.
// [Server.Site] gives a workspace folder its own base URL under that prefix, on a port of
// its own on 127.0.0.1 (so each folder's pages have their own origin, and their storage is
// out of the other folders' reach); a site serves files of that folder only,
// opened by [tools.Workspace.OpenToServe]: the file tools' confinement (os.Root, no path
// outside through ".." or a link, none of the app's own files) and no hidden file or folder
// (.git, .prototyper, .env). Responses are never cached, and their policy keeps a page from
// the machine's plain-http services (connect-src and form-action: its own server, https and
// wss only) and its address, which holds the secret, from other sites (no Referer).
//
// Every HTML page loaded into a frame gets a small reporter script first in its document
// (an HTML file a script fetches comes as it is). It reports, by POST to its site's secret
// endpoint, uncaught errors, unhandled rejections, failed loads of scripts, styles and
// images, requests the policy blocked, console output, the scroll position (given back to
// the next load of that page, so that a reload keeps it) and that the page painted. The
// server also records the 404s it answered. Each HTML page loaded starts a new load of its
// site: what an earlier load reported is dropped, so a site's [Report] is always about the
// page as it is now.
//
// # Who sees the reports
//
// [Server] calls its notify function with a site's report when it changed (at most every
// [notifyEvery], and less often after a large report: about [notifyBytesPerSecond] of
// reports per site); the window's session turns that into a `preview.report` event. The
// `preview_errors` tool ([Room.ToolsFor]) gives the agent the report of its workspace.
//
// # Caveats
//
// The page runs in the window's web view, in an iframe of another origin. What keeps it
// from the app's bound methods is the window's business (see docs/ARCHITECTURE.md, "The
// preview"), not this package's.
package preview
