// The wording rule for every sentence the window's own code shows, checked over the sources:
// a sentence starts with a capital (or with a name or number it shows) and holds no Markdown
// (no backtick, "**" or "]("), since the window shows it as it is. Go's sentences have their
// own scan (internal/archtest); a Go error is made a sentence where it arrives (state/sentence.ts).
//
// What counts as a sentence (a label of one or two words, "running", "in use", is a badge's
// word and keeps the badge's lower case):
//   - JSX text of three words or more, or ending as a sentence ends (., ?, !, …, :); text after
//     a {value} or an element continues a sentence and is checked for Markdown only;
//   - the same in a JSX attribute a person reads or hears: title, aria-label, placeholder,
//     aria-description, label;
//   - any other string or template literal of three words or more that ends as a sentence ends
//     (., ?, !, …), where a literal that starts with ${…} starts with a value.
// Tests, the demo and fake backends and generated files are not the window's words.

import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const readAttributes = new Set(['title', 'aria-label', 'placeholder', 'aria-description', 'label'])
const notWords = [/\.test\.tsx?$/, /^test\//, /^generated\//, /^demo\.ts$/, /^browserDemo\.ts$/, /^fakeBackend\.ts$/]

interface Found {
  where: string
  text: string
  opens: boolean // the text opens a sentence: its first letter must be a capital
}

// Every source of the window, by its path under src/, read by Vite as text.
const sources = Object.entries(import.meta.glob<string>('../**/*.{ts,tsx}', { query: '?raw', import: 'default', eager: true }))
  .map(([path, code]) => [path.replace(/^\.\.\//, ''), code] as const)
  .filter(([path]) => !notWords.some((re) => re.test(path)))

/** Whether text reads as a sentence rather than a label: three words or more, or a sentence's end. */
function sentenceLike(text: string): boolean {
  const t = text.trim()
  return /[A-Za-z]/.test(t) && (t.split(/\s+/).length >= 3 || /[.?!…:]$/.test(t))
}

function literalText(n: ts.Node): { text: string; opens: boolean } | null {
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return { text: n.text, opens: true }
  if (ts.isTemplateExpression(n)) {
    const text = n.head.text + n.templateSpans.map((s) => `\${}${s.literal.text}`).join('')
    return { text, opens: n.head.text.trim() !== '' }
  }
  return null
}

/** The expressions an attribute's value may be: each branch of a choice (`a ? 'x' : 'y'`, `a ?? 'y'`, `a || 'y'`). */
function attributeValues(e: ts.Expression): ts.Expression[] {
  if (ts.isParenthesizedExpression(e)) return attributeValues(e.expression)
  if (ts.isConditionalExpression(e)) return [...attributeValues(e.whenTrue), ...attributeValues(e.whenFalse)]
  if (ts.isBinaryExpression(e) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(e.operatorToken.kind))
    return [e.left, ...attributeValues(e.right)]
  return [e]
}

export function sentencesIn(file: string, code: string): Found[] {
  const src = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS)
  const out: Found[] = []
  const where = (n: ts.Node) => `${file}:${src.getLineAndCharacterOfPosition(n.getStart()).line + 1}`
  const visit = (n: ts.Node) => {
    if (ts.isJsxText(n)) {
      const text = n.text.replace(/\s+/g, ' ').trim()
      if (sentenceLike(text)) {
        const siblings = ts.isJsxElement(n.parent) || ts.isJsxFragment(n.parent) ? n.parent.children : ts.factory.createNodeArray()
        const before = siblings.slice(0, siblings.indexOf(n))
        const opens = before.every((s) => ts.isJsxText(s) && s.text.trim() === '')
        out.push({ where: where(n), text, opens })
      }
    } else if (ts.isJsxAttribute(n) && readAttributes.has(n.name.getText(src)) && n.initializer) {
      const init = ts.isJsxExpression(n.initializer) ? n.initializer.expression : n.initializer
      if (!init) return
      for (const value of attributeValues(init)) {
        const lit = literalText(value)
        if (lit) {
          if (sentenceLike(lit.text)) out.push({ where: where(value), ...lit })
        } else ts.forEachChild(value, visit)
      }
      return
    } else if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n) || ts.isLiteralTypeNode(n)) {
      return
    } else {
      const lit = literalText(n)
      if (lit) {
        const t = lit.text.trim()
        if (t.split(/\s+/).length >= 3 && /[.?!…]$/.test(t) && /[A-Za-z]/.test(t)) out.push({ where: where(n), ...lit })
        return
      }
    }
    ts.forEachChild(n, visit)
  }
  visit(src)
  return out
}

export function fault(s: Found): string {
  for (const md of ['`', '**', '](']) if (s.text.includes(md)) return `Markdown shown as raw text (${md})`
  const first = s.text.trim()[0] ?? ''
  if (s.opens && first !== first.toUpperCase()) return 'starts in lower case'
  return ''
}

describe('the window’s sentences', () => {
  it('start with a capital and hold no Markdown', () => {
    const found = sources.flatMap(([path, code]) => sentencesIn(path, code))
    expect(found.length).toBeGreaterThan(150) // the scan still sees the code
    const faults = found.flatMap((s) => (fault(s) ? [`${s.where}: ${fault(s)}: ${JSON.stringify(s.text)}`] : []))
    expect(faults).toEqual([])
  })

  it('catches what the rule is about, and leaves a continued sentence alone', () => {
    const found = sentencesIn(
      'x.tsx',
      `const a = <p>run the app with <code>x</code> again</p>
       const b = <p>{n} files changed here</p>
       const g = <span>running</span>
       const c = <b title="stop the run">x</b>
       const h = <b aria-label={busy ? 'stop the run' : 'Send'} title={tip ?? 'send the message'}>x</b>
       const d = 'Run \`make run\` to build it.'
       const e = \`\${name} cannot see images.\`
       const f = 'the run stopped for good.'`,
    )
    expect(found.map((s) => [s.text, fault(s) !== ''])).toEqual([
      ['run the app with', true],
      ['files changed here', false],
      ['stop the run', true],
      ['stop the run', true],
      ['send the message', true],
      ['Run `make run` to build it.', true],
      ['${} cannot see images.', false],
      ['the run stopped for good.', true],
    ])
  })
})
