// Markdown to HTML for the answers: GitHub-flavoured (tables, strikethrough, task lists),
// fenced code with a copy button and highlighting. Model output is untrusted: raw HTML is shown
// as text, links keep only http(s) and mailto targets, images are never fetched (the app works
// offline) and appear as links.

import { Lexer, Marked, type Token, type TokensList } from 'marked'

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!)
}

function safeUrl(href: string): boolean {
  return /^(https?:|mailto:)/i.test(href.trim())
}

type Highlight = (code: string, lang: string) => string | null
let highlighter: Highlight | null = null
let loading: Promise<void> | null = null
let version = 0
const listeners = new Set<() => void>()

/** Loads the highlighter once; subscribers re-render their code blocks when it arrives. */
export function loadHighlighter(): Promise<void> {
  loading ??= import('./highlight').then((m) => {
    highlighter = m.highlight
    version++
    for (const l of listeners) l()
  })
  return loading
}

export function subscribeHighlighter(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function highlighterVersion(): number {
  return version
}

/**
 * Highlighted HTML of code in a language (escaped by the highlighter), or null while the
 * highlighter loads (subscribers hear when it arrived) or when the language is unknown.
 */
export function highlightCode(code: string, lang: string): string | null {
  if (!highlighter) {
    void loadHighlighter()
    return null
  }
  return highlighter(code, lang)
}

const md = new Marked({ gfm: true, breaks: false })
md.use({
  renderer: {
    code({ text, lang }) {
      const language = (lang ?? '').trim().split(/\s+/)[0] ?? ''
      let body: string | null = null
      if (language) {
        if (highlighter) body = highlighter(text, language.toLowerCase())
        else void loadHighlighter()
      }
      const cls = language ? ` language-${escapeHtml(language)}` : ''
      return (
        `<div class="code-block"><div class="code-head"><span>${escapeHtml(language || 'text')}</span>` +
        `<button type="button" class="copy-code">Copy</button></div>` +
        `<pre><code class="hljs${cls}">${body ?? escapeHtml(text)}</code></pre></div>`
      )
    },
    html({ text }) {
      return escapeHtml(text)
    },
    link({ href, title, tokens }) {
      const inner = this.parser.parseInline(tokens)
      if (!safeUrl(href)) return inner
      const t = title ? ` title="${escapeHtml(title)}"` : ''
      return `<a href="${escapeHtml(href)}"${t}>${inner}</a>`
    },
    image({ href, text }) {
      if (!safeUrl(href)) return escapeHtml(text)
      return `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`
    },
  },
})

// A line of only spaces and tabs ends a block, as an empty line does: marked takes a tab-only
// line after a table for one more (empty) row, so such lines are emptied before lexing.
function blankLines(text: string): string {
  return text.replace(/^[ \t]+$/gm, '')
}

/** The top-level blocks of a Markdown text. */
export function lexBlocks(text: string): TokensList {
  return md.lexer(blankLines(text))
}

// A copy of `s` that shares no memory with the string it was cut from. Tokens keep slices of
// the text they were lexed from, and a slice keeps its whole parent alive: lexing the tail of
// the answer as a plain slice would keep one full copy of the answer for every block kept from
// an earlier frame (memory growing with the square of the answer's length).
function detached(s: string): string {
  return (' ' + s).slice(1)
}

// The reference definitions the blocks hold (also inside quotes and lists), the first of each
// label as marked keeps it: what a tail lexed after them must know.
function definitionsIn(tokens: Token[], into: TokensList['links'] = Object.create(null)): TokensList['links'] {
  for (const t of tokens) {
    if (t.type === 'def' && !(t.tag in into)) into[t.tag] = { href: t.href, title: t.title }
    const children = [...((t as { tokens?: Token[] }).tokens ?? []), ...((t as { items?: Token[] }).items ?? [])]
    if (children.length) definitionsIn(children, into)
  }
  return into
}

// The same definitions, label by label.
function sameDefinitions(a: TokensList['links'], b: TokensList['links']): boolean {
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] && a[k].href === b[k].href && a[k].title === b[k].title)
}

/**
 * A lexer for a text that grows at its end (a streaming answer). When the new text extends the
 * previous one, the blocks before the last two are kept and only the rest is lexed again, so a
 * long answer costs the same per frame as a short one. Anything else is lexed in full.
 */
export function incrementalLexer(): (text: string) => TokensList {
  let prevText = ''
  let prev: TokensList | null = null
  return (raw) => {
    const text = blankLines(raw)
    if (prev && text === prevText) return prev
    let next: TokensList
    if (prev && text.startsWith(prevText)) {
      let keep = prev.length
      for (let found = 0; keep > 0 && found < 2; ) if (prev[--keep].type !== 'space') found++
      const kept = prev.slice(0, keep)
      const offset = kept.reduce((n, t) => n + t.raw.length, 0)
      let tail: TokensList | null = null
      if (text.slice(0, offset) === kept.map((t) => t.raw).join('')) {
        // the tail is lexed knowing the definitions of the blocks kept, which its links may use
        const lexer = new Lexer(md.defaults)
        Object.assign(lexer.tokens.links, definitionsIn(kept))
        tail = lexer.lex(detached(text.slice(offset)))
      }
      // Definitions other than the last frame's (one new or changed in the tail, its address
      // still arriving, or text that stopped being one) change the links of the blocks kept,
      // whose inline tokens were made without them: then the whole text is lexed again.
      if (tail && sameDefinitions(tail.links, prev.links)) {
        next = Object.assign([...kept, ...tail], { links: tail.links }) as TokensList
      } else {
        next = md.lexer(text)
      }
    } else {
      next = md.lexer(text)
    }
    prevText = text
    prev = next
    return next
  }
}

/** HTML of one top-level block; `links` are the reference definitions of the whole text. */
export function renderBlock(token: Token, links: TokensList['links']): string {
  const list = Object.assign([token], { links }) as TokensList
  return md.parser(list)
}
