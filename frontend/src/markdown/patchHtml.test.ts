import { describe, expect, it, vi } from 'vitest'
import { patchHtml } from './patchHtml'

describe('patchHtml', () => {
  it('ends with the same content as innerHTML would give, from any earlier content', () => {
    const steps = [
      '<p>Hel</p>',
      '<p>Hello <strong>wor</strong></p>',
      '<p>Hello <strong>world</strong> and <code>x</code></p>',
      '<ul><li>one</li></ul>',
      '<ul><li>one</li><li class="done">two</li></ul>',
      '<ul><li>one</li></ul>',
      '<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>',
      '',
    ]
    const el = document.createElement('div')
    for (const html of steps) {
      patchHtml(el, html)
      const want = document.createElement('div')
      want.innerHTML = html
      expect(el.innerHTML).toBe(want.innerHTML)
    }
  })

  it('keeps the nodes that did not change while text is appended', () => {
    const el = document.createElement('div')
    patchHtml(el, '<div class="code-block"><button>Copy</button><pre><code><span class="k">const</span> x</code></pre></div>')
    const button = el.querySelector('button')
    const keyword = el.querySelector('span')
    const code = el.querySelector('code')
    patchHtml(el, '<div class="code-block"><button>Copy</button><pre><code><span class="k">const</span> x = <span class="n">1</span></code></pre></div>')
    expect(el.querySelector('button')).toBe(button)
    expect(el.querySelector('span')).toBe(keyword)
    expect(el.querySelector('code')).toBe(code)
    expect(code!.textContent).toBe('const x = 1')
  })

  it('updates and removes attributes', () => {
    const el = document.createElement('div')
    patchHtml(el, '<a href="https://a.example" title="t">a</a>')
    patchHtml(el, '<a href="https://b.example">a</a>')
    expect(el.innerHTML).toBe('<a href="https://b.example">a</a>')
  })

  it('appends to a text that grew instead of setting it again', () => {
    const el = document.createElement('div')
    patchHtml(el, '<p>Hello</p>')
    const text = el.querySelector('p')!.firstChild as Text
    const append = vi.spyOn(text, 'appendData')
    patchHtml(el, '<p>Hello world</p>')
    expect(el.querySelector('p')!.firstChild).toBe(text)
    expect(append).toHaveBeenCalledWith(' world')
    expect(text.data).toBe('Hello world')
    patchHtml(el, '<p>Goodbye</p>')
    expect(text.data).toBe('Goodbye')
    expect(append).toHaveBeenCalledTimes(1)
  })
})
