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

describe('Markdown streamed', () => {
  // An answer whose blocks span the pieces it arrives in: a code fence opened in one piece and
  // closed pieces later (with a blank line inside), a list and a table growing row by row, a
  // reference link defined after its use, and a paragraph that grows over many pieces.
  const answer = [
    '# Plan\n\nFirst I read the files, then I write ',
    'the page.\n\n```ts\nconst a = 1\n',
    '\nfunction f() {\n  return a\n}\n',
    '```\n\n- one\n- tw',
    'o\n  - nested\n- three\n\n| name | size |\n|---|---|\n| a',
    '.txt | 1 KB |\n| b.txt | 2 KB |\n\nSee [the docs][d] and `code`.\n\n',
    ...Array.from({ length: 40 }, (_, i) => `word${i} `),
    '\n\n1. a\n2. b\n\n[d]: https://example.com\n',
  ]

  // A reference defined before its use, and a definition that stops being one as text arrives.
  const definedFirst = [
    '[d]: https://example.com/first\n\nIntro.\n\nMore.\n\n',
    'See [the docs][d] here.\n\nAnd more.\n\n',
    '[e]: /url',
    ' not a definition after all\n\nThen [e] and [d].\n',
  ]

  it.each([
    ['a reference defined after its use', answer],
    ['a reference defined before its use', definedFirst],
  ])('ends as the same HTML as the whole answer rendered at once, in one piece or a character at a time: %s', (_, answer) => {
    const whole = answer.join('')
    const once = render(<Markdown text={whole} />)
    const want = once.container.innerHTML
    once.unmount()
    for (const pieces of [answer, Array.from(whole)]) {
      let text = ''
      const streamed = render(<Markdown text="" />)
      for (const piece of pieces) {
        text += piece
        streamed.rerender(<Markdown text={text} />)
      }
      expect(streamed.container.innerHTML).toBe(want)
      streamed.unmount()
    }
  })
})
