/**
 * Text from the model shown for the user to judge (a command line to approve): characters that
 * draw nothing or reorder what follows would let it read as something else, so each is shown
 * as a mark naming it, like the Go side's tools/mcptools visible.
 */

// Format characters (bidirectional controls, zero-width characters, the BOM), the C0 controls
// but tab and newline, DEL and the C1 controls, and the line and paragraph separators.
// eslint-disable-next-line no-control-regex -- matching the controls is the point
const hidden = /[\p{Cf}\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/gu

/** s with each invisible or reordering character shown as <U+XXXX>. */
export function visibleChars(s: string): string {
  return s.replace(hidden, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`)
}
