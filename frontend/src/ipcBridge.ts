// The window's calls of the bound methods, as the Wails runtime sends them (window.WailsInvoke),
// go to the app's WebKit message handler while it is in the page's world; once the app has
// moved it to a world of its own (bindingsguard_linux.go, before the first preview is shown, so
// that no frame of another origin can post to it), they go by an event on this document, which
// the app's script in that world carries on. No other frame can dispatch on this document.

interface MessageHandler {
  postMessage(message: string): void
}

export type IpcWindow = Window & {
  WailsInvoke?: (message: string) => void
  webkit?: { messageHandlers?: { external?: MessageHandler } }
}

/** The event the app's script in its own world listens for, on the window's document. */
export const ipcEvent = 'prototyper-ipc'

/** Sends the Wails runtime's messages to whichever way the app takes them now. */
export function bridgeBindings(w: IpcWindow = window): void {
  if (!w.WailsInvoke) return // not in the app's window
  w.WailsInvoke = (message: string) => {
    const handler = w.webkit?.messageHandlers?.external
    if (handler) handler.postMessage(message)
    else w.document.dispatchEvent(new CustomEvent(ipcEvent, { detail: message }))
  }
}
