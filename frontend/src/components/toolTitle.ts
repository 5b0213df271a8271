// A tool card's title says what happened, in the user's words ("Created index.html", "Could not
// edit notes.md", "Read notes.md?"), the function name staying as secondary text. One table of
// verbs per tool; a tool it does not know (an MCP server's) is titled by its name.

import type { ToolCard } from '../state/chatReducer'

/** The forms of a tool's verb: "Read the file?", "Reading the file…", "Read the file". */
interface Verb {
  /** The infinitive, capitalised: "Edit". */
  base: string
  /** The present participle: "Editing". */
  doing: string
  /** The past: "Edited". */
  done: string
}

const verbs: Record<string, Verb> = {
  read_file: { base: 'Read', doing: 'Reading', done: 'Read' },
  edit_file: { base: 'Edit', doing: 'Editing', done: 'Edited' },
  delete_path: { base: 'Delete', doing: 'Deleting', done: 'Deleted' },
  list_dir: { base: 'List', doing: 'Listing', done: 'Listed' },
  search_files: { base: 'Search for', doing: 'Searching for', done: 'Searched for' },
  make_dir: { base: 'Create the folder', doing: 'Creating the folder', done: 'Created the folder' },
  preview_errors: { base: 'Read the preview’s errors', doing: 'Reading the preview’s errors', done: 'Read the preview’s errors' },
  start_server: { base: 'Start a server with', doing: 'Starting a server with', done: 'Started a server with' },
  stop_server: { base: 'Stop the server', doing: 'Stopping the server', done: 'Stopped the server' },
}

/**
 * write_file creates or replaces: which one, once its result says it (created and changed are
 * left out when false) or its preview does; before either, it writes.
 */
function writeVerb(card: Pick<ToolCard, 'details' | 'preview'>): Verb {
  const d = card.details
  if (d?.created || (!d && card.preview?.created)) return { base: 'Create', doing: 'Creating', done: 'Created' }
  if (d?.changed || (!d && card.preview && !card.preview.created && !card.preview.unchanged)) return { base: 'Replace', doing: 'Replacing', done: 'Replaced' }
  return { base: 'Write', doing: 'Writing', done: 'Wrote' }
}

function lower(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1)
}

/**
 * The words before the card's subject (its path, its search): what the call does, did or would
 * do in its state; '' for a tool without a verb of its own (the card shows its name instead).
 */
export function titleVerb(card: Pick<ToolCard, 'name' | 'state' | 'details' | 'preview'>): string {
  const v = card.name === 'write_file' ? writeVerb(card) : verbs[card.name]
  if (!v) return ''
  switch (card.state) {
    case 'pending':
      return `Will ${lower(v.base)}`
    case 'running':
      return v.doing
    case 'awaiting_approval':
      return v.base
    case 'completed':
    case 'undone':
      return v.done
    case 'failed':
      return `Could not ${lower(v.base)}`
    case 'stopped':
    case 'interrupted':
      return `Stopped ${lower(v.doing)}`
    default:
      // denied, not run, or a state this version does not know
      return `Did not ${lower(v.base)}`
  }
}

/** What ends the title: "?" for a call that waits for the user, "…" for one under way. */
export function titleEnd(card: Pick<ToolCard, 'name' | 'state'>): string {
  if (card.state === 'awaiting_approval') return '?'
  if (card.state === 'running') return '…'
  return ''
}

/** The card's title as one line of text: its verb, its subject and its end. */
export function toolTitle(card: Pick<ToolCard, 'name' | 'state' | 'details' | 'preview'>, subject: string): string {
  const verb = titleVerb(card)
  const what = verb ? `${verb}${subject ? ` ${subject}` : ''}` : `${card.name || 'tool'}${subject ? ` ${subject}` : ''}`
  return `${what}${titleEnd(card)}`
}

/**
 * What each tool does, in the words of its card's title, where tools are listed by name (the
 * settings' approvals and the tools always allowed).
 */
const actions: Record<string, string> = {
  read_file: 'Read a file',
  write_file: 'Create or replace a file',
  edit_file: 'Edit a file',
  delete_path: 'Delete a file or folder',
  list_dir: 'List a folder',
  search_files: 'Search for text in the files',
  make_dir: 'Create a folder',
  run_command: 'Run a command',
  preview_errors: 'Read the preview’s errors',
  start_server: 'Start a development server',
  stop_server: 'Stop the development server',
}

/**
 * What the tool name does, in words: "Edit a file" for edit_file; an MCP server's tool
 * (mcp__SERVER__TOOL) is its name on that server; '' for a tool it does not know.
 */
export function toolAction(name: string): string {
  const known = actions[name]
  if (known) return known
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name)
  return mcp ? `${mcp[2]} of the ${mcp[1]} server` : ''
}
