import { describe, expect, it } from 'vitest'
import { render } from '@testing-library/react'
import { Markdown } from './Markdown'
import { loadHighlighter } from './render'

describe('Markdown', () => {
  it('renders GitHub tables', () => {
    const { container } = render(<Markdown text={'| a | b |\n|---|---|\n| 1 | 2 |'} />)
    expect(container.querySelectorAll('table td')).toHaveLength(2)
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
