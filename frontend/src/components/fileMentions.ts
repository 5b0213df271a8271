/** The @word being typed before the caret: where it starts (the @) and what follows it so far. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret))
  if (!m) return null
  return { start: caret - m[2].length - 1, query: m[2] }
}

/** text with the @word at start..caret replaced by @path and a space; the new caret. */
export function pickMention(text: string, start: number, caret: number, path: string): { text: string; caret: number } {
  const inserted = `@${path} `
  return { text: text.slice(0, start) + inserted + text.slice(caret), caret: start + inserted.length }
}
