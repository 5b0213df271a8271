import { memo, useLayoutEffect, useMemo, useRef, useSyncExternalStore, type MouseEvent } from 'react'
import type { Token, TokensList } from 'marked'
import { copyText } from '../backend'
import { patchHtml } from './patchHtml'
import { highlighterVersion, incrementalLexer, renderBlock, subscribeHighlighter } from './render'

/**
 * An answer rendered as Markdown. The text is split into top-level blocks and each block is
 * rendered once per distinct source, so while an answer streams only its last block is redone.
 * With `from` > 0 only the end of the text is shown: the block holding that character offset and
 * every block after it.
 */
export function Markdown({ text, from = 0 }: { text: string; from?: number }) {
  const version = useSyncExternalStore(subscribeHighlighter, highlighterVersion)
  const lexer = useRef<ReturnType<typeof incrementalLexer> | null>(null)
  lexer.current ??= incrementalLexer()
  const lex = lexer.current
  const tokens = useMemo(() => lex(text), [lex, text])
  // A reference definition can come after the blocks that use it: they are rendered again when
  // the definitions change, not when only the object holding them is new.
  const links = useMemo(() => JSON.stringify(tokens.links), [tokens])
  const first = from > 0 ? firstBlockAt(tokens, from) : 0
  return (
    <div className="markdown" onClick={onMarkdownClick}>
      {tokens.map((t, i) =>
        i < first || t.type === 'space' ? null : <Block key={i} token={t} links={tokens.links} linksKey={links} version={version} />,
      )}
    </div>
  )
}

// Index of the block whose source holds character `offset` of the text (the last one if the
// offset is past the end).
function firstBlockAt(tokens: TokensList, offset: number): number {
  let end = 0
  for (let i = 0; i < tokens.length; i++) {
    end += tokens[i].raw.length
    if (end > offset) return i
  }
  return Math.max(0, tokens.length - 1)
}

interface BlockProps {
  token: Token
  links: TokensList['links']
  linksKey: string
  version: number
}

// One block; a block rendered again (the one still streaming) is patched in place.
const Block = memo(
  function Block({ token, links }: BlockProps) {
    const ref = useRef<HTMLDivElement>(null)
    const html = renderBlock(token, links)
    useLayoutEffect(() => {
      if (ref.current) patchHtml(ref.current, html)
    }, [html])
    return <div className="md-block" ref={ref} />
  },
  (a, b) => a.token.raw === b.token.raw && a.linksKey === b.linksKey && a.version === b.version,
)

// Copy buttons and links inside the rendered HTML, handled in one place.
function onMarkdownClick(e: MouseEvent<HTMLDivElement>) {
  const target = e.target as HTMLElement
  const copy = target.closest<HTMLButtonElement>('.copy-code')
  if (copy) {
    const code = copy.closest('.code-block')?.querySelector('code')?.textContent ?? ''
    void copyText(code).then(
      () => {
        copy.textContent = 'Copied'
        setTimeout(() => (copy.textContent = 'Copy'), 1500)
      },
      () => (copy.textContent = 'Copy failed'),
    )
    return
  }
  const link = target.closest<HTMLAnchorElement>('a[href]')
  if (link) {
    // The webview must never navigate away from the app: open links in the system browser.
    e.preventDefault()
    const href = link.getAttribute('href') ?? ''
    if (window.runtime?.BrowserOpenURL) window.runtime.BrowserOpenURL(href)
    else window.open(href, '_blank', 'noopener')
  }
}
