import { describe, expect, it } from 'vitest'
import { render } from '@testing-library/react'
import { Markdown } from './Markdown'
import { incrementalLexer, lexBlocks, loadHighlighter, renderBlock } from './render'

describe('Markdown', () => {
  it('renders GitHub tables', () => {
    const { container } = render(<Markdown text={'| a | b |\n|---|---|\n| 1 | 2 |'} />)
    expect(container.querySelectorAll('table td')).toHaveLength(2)
  })

  it('ends a table at a line of only spaces or tabs, as at an empty line', () => {
    for (const blank of ['   ', '\t', ' \t ']) {
      const text = `| a | b |\n|---|---|\n| 1 | 2 |\n${blank}\nAfter the table.`
      const { container, unmount } = render(<Markdown text={text} />)
      expect(container.querySelectorAll('table tbody tr'), JSON.stringify(blank)).toHaveLength(1)
      expect(container.querySelector('p')?.textContent).toBe('After the table.')
      unmount()
    }
  })

  it('renders fenced code with a language label and a copy button', () => {
    const { container } = render(<Markdown text={'```go\nfunc main() {}\n```'} />)
    expect(container.querySelector('.code-head span')!.textContent).toBe('go')
    expect(container.querySelector('button.copy-code')).not.toBeNull()
    expect(container.querySelector('code')!.textContent).toBe('func main() {}')
  })

  it('highlights code once the highlighter is loaded', async () => {
    await loadHighlighter()
    const { container } = render(<Markdown text={'```go\nfunc main() {}\n```'} />)
    expect(container.querySelector('code .hljs-keyword')!.textContent).toBe('func')
  })

  it('shows raw HTML as text and drops unsafe links', () => {
    const { container } = render(<Markdown text={'<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1)) [ok](https://example.com)'} />)
    expect(container.querySelector('img')).toBeNull()
    expect(container.textContent).toContain('<img src=x onerror=alert(1)>')
    const links = container.querySelectorAll('a')
    expect(links).toHaveLength(1)
    expect(links[0].getAttribute('href')).toBe('https://example.com')
  })
})

describe('incrementalLexer', () => {
  it('gives the same blocks as a full lex at every step of a streamed text', () => {
    const text = [
      '# Plan\n\nSome *text* here.\nMore text\n===\n\n',
      '| a | b |\n|---|---|\n| 1 | 2 |\n\n',
      '- one\n- two\n\n- three\n\n',
      '```ts\nconst x = 1\n\nconst y = 2\n```\n\n',
      'See [the docs][d].\n\n[d]: https://example.com\n',
      '> quote\ncontinued\n\n1. a\n2. b\n',
    ].join('')
    const lex = incrementalLexer()
    for (let i = 1; i <= text.length; i += 3) {
      const part = text.slice(0, i)
      const inc = lex(part)
      const full = lexBlocks(part)
      expect(inc.map((t) => renderBlock(t, inc.links)).join(''), `at ${i}`).toBe(
        full.map((t) => renderBlock(t, full.links)).join(''),
      )
    }
  })
})
