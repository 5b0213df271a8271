/**
 * The one owner of how a Go sentence reads in the window. Go's errors follow Go's habit (lower
 * case, since they are wrapped) and the terminal's (a command to type in backticks); where
 * such a text arrives in the window (a bound call's error, an error event, a failed tool's
 * reason) it passes here once, so no component capitalises on its own.
 */

/**
 * text as a sentence the window shows: its first word capitalised when it is a plain
 * lower-case word (a path, a file or a model name that starts it is left as it is spelled),
 * and a command in backticks put in quotes (“prototyper models”), never raw Markdown.
 */
export function asSentence(text: string): string {
  const s = text.trim().replace(/`([^`\n]+)`/g, '“$1”')
  const first = /^[a-z][a-z’']*(?=[\s,:;!?—]|\.(?:\s|$)|$)/.exec(s)
  return first ? s[0].toUpperCase() + s.slice(1) : s
}
