// The sentences that name what a run, an undo or a redo changed: files named, the folders that
// hold them counted apart.

import type { UndoResult } from '../backend'

/**
 * What a run changed as a person counts it: the files, and apart the folders made (or removed)
 * with them. A path of the change that holds another path of it is a folder: a write records
 * the folders it makes, a delete everything it removes.
 */
export function filesAndFolders(paths: string[]): { files: string[]; folders: string[] } {
  const holds = (dir: string) => paths.some((p) => p.startsWith(`${dir}/`))
  return { files: paths.filter((p) => !holds(p)), folders: paths.filter(holds) }
}

/** "This run changed a.txt and b.txt", "…changed site/index.html (and 2 folders)". */
export function runChangeText(paths: string[]): string {
  return `This run changed ${filesThenFolders(paths)}`
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

/** The files of paths named, and the folders that hold them counted: "site/index.html (and a folder)". */
function filesThenFolders(paths: string[]): string {
  const { files, folders } = filesAndFolders(paths)
  const also = folders.length === 0 ? '' : folders.length === 1 ? ' (and a folder)' : ` (and ${folders.length} folders)`
  return `${pathList(files)}${also}`
}

/** Paths as a sentence names them (what a run changed, what an undo put back): "a.txt", "a.txt and b.txt", "a, b, c and 4 more". */
export function pathList(paths: string[]): string {
  const shown = paths.length > 4 ? paths.slice(0, 3) : paths
  const rest = paths.length - shown.length
  const names = rest > 0 ? [...shown, `${rest} more`] : shown
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : (names[0] ?? 'nothing')
}
