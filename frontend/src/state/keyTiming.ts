// When the window received Enter in the message box, told to Go for the bridge log: what the
// window adds to a send is measured from there, not from when a test's tool began to type it.
// The key event's own time is taken (the moment the web view received it). The note goes at
// once, from the key's first listener: a timer or a later task may run only after the answer
// has begun on a loaded machine, and the note costs the send a message post, no wait.

import type { Backend } from '../backend'

/** The key event's time in milliseconds since the Unix epoch. */
export function eventTimeUnixMs(ev: Pick<Event, 'timeStamp'>, timeOrigin = performance.timeOrigin): number {
  // A high-resolution time stamp counts from the page's time origin; an old engine's, from the epoch.
  return ev.timeStamp > 1e12 ? ev.timeStamp : timeOrigin + ev.timeStamp
}

/** Whether a keydown sends the message box's text (Enter without Shift, not composing). */
export function sendsMessage(ev: KeyboardEvent): boolean {
  const box = ev.target instanceof Element ? ev.target.closest('form.composer') : null
  return box !== null && ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing
}

/** Notes every Enter that sends the message box; returns the function that stops it. */
export function watchEnterTiming(backend: Pick<Backend, 'keyReceived'>, doc: Document = document): () => void {
  const onKey = (ev: KeyboardEvent) => {
    if (!sendsMessage(ev)) return
    void backend.keyReceived('Enter', eventTimeUnixMs(ev)).catch(() => {})
  }
  doc.addEventListener('keydown', onKey, { capture: true })
  return () => doc.removeEventListener('keydown', onKey, { capture: true })
}
