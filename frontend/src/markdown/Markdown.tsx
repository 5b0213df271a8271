import { memo, useMemo, useRef, useSyncExternalStore, type MouseEvent } from 'react'
import type { Token, TokensList } from 'marked'
import { copyText } from '../backend'
import { highlighterVersion, incrementalLexer, renderBlock, subscribeHighlighter } from './render'

/**
 * An answer rendered as Markdown. The text is split into top-level blocks and each block is
 * rendered once per distinct source, so while an answer streams only its last block is redone.
 */
export function Markdown({ text }: { text: string }) {
  const version = useSyncExternalStore(subscribeHighlighter, highlighterVersion)
  const lexer = useRef<ReturnType<typeof incrementalLexer> | null>(null)
  lexer.current ??= incrementalLexer()
  const lex = lexer.current
  const tokens = useMemo(() => lex(text), [lex, text])
  return (
    <div className="markdown" onClick={onMarkdownClick}>
      {tokens.map((t, i) =>
        t.type === 'space' ? null : <Block key={i} token={t} links={tokens.links} version={version} />,
      )}
    </div>
  )
}

interface BlockProps {
  token: Token
  links: TokensList['links']
  version: number
}

const Block = memo(
  function Block({ token, links }: BlockProps) {
    return <div className="md-block" dangerouslySetInnerHTML={{ __html: renderBlock(token, links) }} />
  },
  (a, b) => a.token.raw === b.token.raw && a.version === b.version,
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
