// The sentences that name what a run, an undo or a redo changed: files named, the folders that
// hold them counted apart.

import type { ChangeSummary, UndoResult } from '../backend'

/**
 * What a run changed as a person counts it: the files, and apart the folders made (or removed)
 * with them. A path of the change that holds another path of it is a folder: a write records
 * the folders it makes, a delete everything it removes.
 */
export function filesAndFolders(paths: string[]): { files: string[]; folders: string[] } {
  const holds = (dir: string) => paths.some((p) => p.startsWith(`${dir}/`))
  return { files: paths.filter((p) => !holds(p)), folders: paths.filter(holds) }
}

/**
 * What a run did to each of its paths, as the Go side says it (created, deleted, the others
 * edited), files named and the folders counted apart within each: "This run created a.txt,
 * edited b.txt and deleted old.txt", "This run created site/index.html (and a folder)".
 */
export function runChangeText(change: Pick<ChangeSummary, 'paths' | 'created' | 'deleted'>): string {
  const paths = change.paths ?? []
  const { folders } = filesAndFolders(paths)
  const created = new Set(change.created ?? [])
  const deleted = new Set(change.deleted ?? [])
  const said = (
    [
      ['created', paths.filter((p) => created.has(p))],
      ['edited', paths.filter((p) => !created.has(p) && !deleted.has(p))],
      ['deleted', paths.filter((p) => deleted.has(p) && !created.has(p))],
    ] as const
  )
    .filter(([, ps]) => ps.length > 0)
    .map(([verb, ps]) => `${verb} ${filesThenFolders(ps, folders)}`)
  // "edited b.txt and c.txt, and deleted old.txt": a comma where a part has its own "and"
  const last = said.slice(0, -1).some((p) => p.includes(' and ')) ? ', and ' : ' and '
  const sentence = said.length > 1 ? `${said.slice(0, -1).join(', ')}${last}${said[said.length - 1]}` : (said[0] ?? 'changed nothing')
  return `This run ${sentence}`
}

/**
 * What an undo put back or a redo made again, files named and the folders that hold them
 * counted apart: "Undone: a.txt put back.", "Redone: a.txt as the run left it."
 */
export function undoneText(redo: boolean, res: Pick<UndoResult, 'paths' | 'removed' | 'elsewhere' | 'inChatFolder'>): string {
  // a name put back in two of the chat's folders is said once; the folders are said after
  const paths = [...new Set(res.paths ?? [])]
  const removed = paths.filter((p) => res.removed?.includes(p))
  const back = paths.filter((p) => !removed.includes(p))
  const said = [
    ...(back.length > 0 || removed.length === 0
      ? [redo ? `${filesThenFolders(back)} as the run left ${back.length === 1 ? 'it' : 'them'}` : `${filesThenFolders(back)} put back`]
      : []),
    ...(removed.length > 0 ? [`${filesThenFolders(removed)} removed${redo ? ' again' : ''}`] : []),
  ]
  const elsewhere = res.elsewhere ?? []
  const earlier = `${pathList(elsewhere)}, its earlier folder${elsewhere.length > 1 ? 's' : ''}`
  const where = elsewhere.length === 0 ? '' : res.inChatFolder ? ` (in the chat’s folder and in ${earlier})` : ` (in ${earlier})`
  return `${redo ? 'Redone' : 'Undone'}: ${said.join('; ')}${where}.`
}

/**
 * The files of paths named, and the folders that hold them counted: "site/index.html (and a
 * folder)"; folders alone are counted: "a folder". `folders` are the folders of the whole
 * change, when paths are a part of it.
 */
function filesThenFolders(paths: string[], folders = filesAndFolders(paths).folders): string {
  const files = paths.filter((p) => !folders.includes(p))
  const these = paths.filter((p) => folders.includes(p))
  const counted = these.length === 1 ? 'a folder' : `${these.length} folders`
  if (files.length === 0) return counted
  return these.length === 0 ? pathList(files) : `${pathList(files)} (and ${counted})`
}

/** Paths as a sentence names them (what a run changed, what an undo put back): "a.txt", "a.txt and b.txt", "a, b, c and 4 more". */
export function pathList(paths: string[]): string {
  const shown = paths.length > 4 ? paths.slice(0, 3) : paths
  const rest = paths.length - shown.length
  return listed(rest > 0 ? [...shown, `${rest} more`] : shown)
}

/** Parts of a sentence joined as a person lists them: "a", "a and b", "a, b and c". */
function listed(parts: string[]): string {
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : (parts[0] ?? 'nothing')
}
