// The output of a running command as its card shows it: stdout and stderr in the order they
// came, bounded in memory whatever the command prints. The first headChars characters are kept
// (a compiler's first error, a test runner's header), then the last tailChars (how it ended);
// what falls between is counted, not kept.

import type { OutputStream } from '../backend'

/** A run of output from one stream. */
export interface OutputChunk {
  stream: OutputStream
  text: string
}

export interface CommandOutput {
  head: OutputChunk[]
  headChars: number
  tail: OutputChunk[]
  tailChars: number
  /** Characters dropped between the head and the tail. */
  cutChars: number
}

/** How much of a command's output a card keeps: its head and its tail, in characters. */
export const outputHeadChars = 16 * 1024
export const outputTailChars = 48 * 1024

export const emptyOutput: CommandOutput = { head: [], headChars: 0, tail: [], tailChars: 0, cutChars: 0 }

// Appends text to a list of chunks, joining it to the last one when it is of the same stream.
function push(chunks: OutputChunk[], stream: OutputStream, text: string): OutputChunk[] {
  const last = chunks[chunks.length - 1]
  if (last && last.stream === stream) return [...chunks.slice(0, -1), { stream, text: last.text + text }]
  return [...chunks, { stream, text }]
}

/** The output with text of stream appended; the middle beyond the bounds is counted, not kept. */
export function appendOutput(out: CommandOutput, stream: OutputStream, text: string): CommandOutput {
  if (!text) return out
  let { head, headChars, tail, tailChars, cutChars } = out
  let rest = text
  if (headChars < outputHeadChars) {
    const take = rest.slice(0, outputHeadChars - headChars)
    head = push(head, stream, take)
    headChars += take.length
    rest = rest.slice(take.length)
  }
  if (rest) {
    // Far more than the tail holds: only its end can stay.
    if (rest.length > outputTailChars) {
      cutChars += tailChars + rest.length - outputTailChars
      tail = []
      tailChars = 0
      rest = rest.slice(rest.length - outputTailChars)
    }
    tail = push(tail, stream, rest)
    tailChars += rest.length
    while (tailChars > outputTailChars) {
      const over = tailChars - outputTailChars
      const first = tail[0]
      if (first.text.length <= over) {
        tail = tail.slice(1)
        tailChars -= first.text.length
        cutChars += first.text.length
      } else {
        tail = [{ stream: first.stream, text: first.text.slice(over) }, ...tail.slice(1)]
        tailChars -= over
        cutChars += over
      }
    }
  }
  return { head, headChars, tail, tailChars, cutChars }
}

/** All the output kept, as one text (what Copy copies). */
export function outputText(out: CommandOutput): string {
  return [...out.head, ...out.tail].map((c) => c.text).join('')
}
