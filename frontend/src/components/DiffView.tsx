import { useMemo, useState, useSyncExternalStore } from 'react'
import { highlightCode, highlighterVersion, subscribeHighlighter } from '../markdown/render'

/** One line of a unified diff as the view shows it. */
export interface DiffLine {
  kind: 'add' | 'del' | 'context' | 'hunk' | 'note'
  /** The line's number in the file before and after the change; null where it has none. */
  oldLine: number | null
  newLine: number | null
  /** The line's text without its sign. */
  text: string
}

/**
 * The lines of a unified diff with their numbers, read from the hunk headers ("@@ -3,4 +3,5
 * @@"); the file headers (---, +++) are left out, a "\ No newline" note is kept as a note.
 */
export function diffLines(diff: string): DiffLine[] {
  const out: DiffLine[] = []
  let oldAt = 0
  let newAt = 0
  const lines = diff.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  for (const l of lines) {
    if (l.startsWith('---') || l.startsWith('+++')) continue
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(l)
    if (hunk) {
      oldAt = Number(hunk[1])
      newAt = Number(hunk[2])
      out.push({ kind: 'hunk', oldLine: null, newLine: null, text: l })
    } else if (l.startsWith('+')) {
      out.push({ kind: 'add', oldLine: null, newLine: newAt++, text: l.slice(1) })
    } else if (l.startsWith('-')) {
      out.push({ kind: 'del', oldLine: oldAt++, newLine: null, text: l.slice(1) })
    } else if (l.startsWith('\\')) {
      out.push({ kind: 'note', oldLine: null, newLine: null, text: l.slice(1).trim() })
    } else {
      out.push({ kind: 'context', oldLine: oldAt++, newLine: newAt++, text: l.startsWith(' ') ? l.slice(1) : l })
    }
  }
  return out
}

/** A row of the side-by-side view: the line before and the line after, either missing. */
export interface SplitRow {
  before: DiffLine | null
  after: DiffLine | null
  /** A hunk header or a note, across both sides. */
  across?: DiffLine
}

/**
 * The lines of a diff side by side: a context line on both sides, the lines a block removed
 * beside the ones it added in their place, in order.
 */
export function splitRows(lines: DiffLine[]): SplitRow[] {
  const rows: SplitRow[] = []
  let dels: DiffLine[] = []
  let adds: DiffLine[] = []
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) rows.push({ before: dels[i] ?? null, after: adds[i] ?? null })
    dels = []
    adds = []
  }
  for (const l of lines) {
    if (l.kind === 'del') {
      if (adds.length > 0) flush()
      dels.push(l)
    } else if (l.kind === 'add') {
      adds.push(l)
    } else {
      flush()
      rows.push(l.kind === 'context' ? { before: l, after: l } : { before: null, after: null, across: l })
    }
  }
  flush()
  return rows
}

const extensionLanguages: Record<string, string> = { rs: 'rust', h: 'c', hpp: 'cpp', cc: 'cpp', htm: 'xml', mk: 'makefile', jsonc: 'json' }

/** The highlighter's language for a file, by its name; '' when there is none. */
export function languageOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1)
  if (/^(GNU)?makefile$/i.test(base)) return 'makefile'
  if (/^dockerfile$/i.test(base)) return 'dockerfile'
  const dot = base.lastIndexOf('.')
  if (dot <= 0) return ''
  const ext = base.slice(dot + 1).toLowerCase()
  return extensionLanguages[ext] ?? ext
}

const sign: Record<DiffLine['kind'], string> = { add: '+', del: '−', context: ' ', hunk: '', note: '' }

/**
 * A change as a unified diff: each line with its numbers before and after, its sign, its text
 * in the colours of the file's language (the highlighter of the answers' code) and wrapped
 * where it is long; "Side by side" shows the lines before beside the lines after. Folded
 * under its summary unless open.
 */
export function DiffView({ diff, open = false, label = 'Diff', path = '' }: { diff: string; open?: boolean; label?: string; path?: string }) {
  const version = useSyncExternalStore(subscribeHighlighter, highlighterVersion)
  const lines = useMemo(() => diffLines(diff), [diff])
  const lang = languageOf(path)
  const html = useMemo(
    () => lines.map((l) => (lang && (l.kind === 'add' || l.kind === 'del' || l.kind === 'context') ? highlightCode(l.text, lang) : null)),
    // the highlighter's arrival (version) colours the lines
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [lines, lang, version],
  )
  const added = lines.filter((l) => l.kind === 'add').length
  const removed = lines.filter((l) => l.kind === 'del').length
  const [split, setSplit] = useState(false)
  const text = (l: DiffLine, i: number) =>
    html[i] !== null && html[i] !== undefined ? (
      // the highlighter escapes the text it is given
      <code className="diff-text hljs" role="cell" dangerouslySetInnerHTML={{ __html: html[i] || ' ' }} />
    ) : (
      <code className="diff-text" role="cell">
        {l.text || ' '}
      </code>
    )
  const side = (l: DiffLine | null, which: 'before' | 'after') => {
    if (!l) return [<span key={`${which}-n`} className="ln" role="cell" />, <span key={`${which}-t`} className="diff-text empty" role="cell" />]
    const n = which === 'before' ? l.oldLine : l.newLine
    return [
      <span key={`${which}-n`} className={`ln ${l.kind}`} role="cell" aria-label={`Line ${n} ${which}`}>
        {n}
      </span>,
      <span key={`${which}-t`} className={`side ${l.kind}`}>
        {text(l, lines.indexOf(l))}
      </span>,
    ]
  }
  return (
    <details className="diff" open={open || undefined}>
      <summary>
        {label} <span className="add">+{added}</span> <span className="del">−{removed}</span>
      </summary>
      <button type="button" className="link diff-layout" aria-pressed={split} onClick={() => setSplit((v) => !v)}>
        Side by side
      </button>
      {split ? (
        <div className="diff-lines split" role="table" aria-label={`${label}, side by side: ${counted(added, removed)}`}>
          {splitRows(lines).map((r, i) =>
            r.across ? (
              <div key={i} className={`diff-line ${r.across.kind}`} role="row">
                <span className="diff-text" role="cell">
                  {r.across.text}
                </span>
              </div>
            ) : (
              <div key={i} className="diff-line split-row" role="row" data-testid="diff-row">
                {side(r.before, 'before')}
                {side(r.after, 'after')}
              </div>
            ),
          )}
        </div>
      ) : (
      <div className="diff-lines" role="table" aria-label={`${label}: ${counted(added, removed)}`}>
        {lines.map((l, i) =>
          l.kind === 'hunk' || l.kind === 'note' ? (
            <div key={i} className={`diff-line ${l.kind}`} role="row">
              <span className="diff-text" role="cell">
                {l.text}
              </span>
            </div>
          ) : (
            <div key={i} className={`diff-line ${l.kind}`} role="row" data-testid="diff-line">
              <span className="ln" role="cell" aria-label={l.oldLine === null ? 'No line before' : `Line ${l.oldLine} before`}>
                {l.oldLine ?? ''}
              </span>
              <span className="ln" role="cell" aria-label={l.newLine === null ? 'No line after' : `Line ${l.newLine} after`}>
                {l.newLine ?? ''}
              </span>
              <span className="sign" aria-hidden="true">
                {sign[l.kind]}
              </span>
              {text(l, i)}
            </div>
          ),
        )}
      </div>
      )}
    </details>
  )
}

/** The lines a diff adds and removes, in words: "1 line added, 3 removed". */
function counted(added: number, removed: number): string {
  return `${added} ${added === 1 ? 'line' : 'lines'} added, ${removed} removed`
}
