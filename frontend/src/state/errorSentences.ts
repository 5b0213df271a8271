// What an error of a run means to the person at the window: one sentence in their words, and
// what they can do about it (Retry: send the last message again; Settings; Models). The Go side's
// message is kept for the details; the code (ollama.Code, events' error code) picks the words.

import type { Provider } from '../backend'
import { asSentence } from './sentence'

export type ErrorAction = 'retry' | 'settings' | 'models'

export interface ErrorSentence {
  text: string
  actions: ErrorAction[]
}

/**
 * Codes of errors that mean the server was not there: once it answers again, their sentence
 * ("not running") is stale, and the message they left unanswered says so instead.
 */
export const serverGoneCodes: ReadonlySet<string> = new Set(['not_running', 'network'])

/** The code of a message the server was away for: it says so, and offers Retry (no event has it). */
export const notAnsweredCode = 'not_answered'

/**
 * Codes of sentences a run says without failing (an AGENTS.md that was not read, a model now
 * asked for its calls written as text): the message is the sentence, and Retry would only say it
 * again.
 */
const goesOnCodes: ReadonlySet<string> = new Set(['instructions_refused', 'calls_written'])

/** The code a notice of an error shows with: a server-gone error is history once it answers. */
export function codeOnceBack(code: string): string {
  return serverGoneCodes.has(code) ? notAnsweredCode : code
}

/** How the sentences name the server the chat's model answers from (see `Config.provider`). */
interface ServerWords {
  /** At the start of a sentence. */
  Name: string
  /** Inside one. */
  name: string
  on: string
  /** How a user gets a model the server lacks. */
  getModel: string
}

const serverWords: Record<Provider, ServerWords> = {
  ollama: { Name: 'Ollama', name: 'Ollama', on: 'on the Ollama server', getModel: 'Pull it or pick another' },
  openai: { Name: 'The model server', name: 'the model server', on: 'on the model server', getModel: 'Pick one it serves' },
}

// The actions a sentence offers, the likeliest first: Retry, Settings where the cause may lie
// there (the server's address, how long to wait), the model menu where the model is the cause.
const retryOrSettings: ErrorAction[] = ['retry', 'settings']
const pickModelOrRetry: ErrorAction[] = ['models', 'retry']
const retryOnly: ErrorAction[] = ['retry']

function sentencesFor(w: ServerWords): Record<string, ErrorSentence> {
  return {
    not_running: {
      text: `${w.Name} is not running, so the model could not answer. Start ${w.name}; this message goes away once it answers, then Retry.`,
      actions: retryOrSettings,
    },
    [notAnsweredCode]: {
      text: `This message was not answered: ${w.name} could not be reached then. Retry asks again.`,
      actions: retryOnly,
    },
    network: {
      text: `${w.Name} could not be reached at the address in the settings. Check that it runs there, then Retry.`,
      actions: retryOrSettings,
    },
    model_not_found: {
      text: `This chat’s model is not ${w.on}. ${w.getModel} in the model menu (Ctrl+M), then Retry.`,
      actions: pickModelOrRetry,
    },
    capability_missing: {
      text: 'This model cannot do what the chat needs (calling tools, or thinking). Pick a model with the “tools” badge (Ctrl+M), then Retry.',
      actions: pickModelOrRetry,
    },
    busy: { text: `${w.Name} is busy with other requests. Wait a moment, then Retry.`, actions: retryOnly },
    stream_error: {
      text: `${w.Name} reported an error in the middle of the answer. What arrived is kept; Retry asks again.`,
      actions: retryOnly,
    },
    incomplete_stream: {
      text: `The answer broke off before it ended (${w.name} closed the connection). What arrived is kept; Retry asks again.`,
      actions: retryOnly,
    },
    malformed_line: {
      text: `${w.Name} sent something that is not an answer. What arrived is kept; Retry asks again.`,
      actions: retryOnly,
    },
    line_too_long: {
      text: `${w.Name} sent a piece of the answer too large to read. What arrived is kept; Retry asks again.`,
      actions: retryOnly,
    },
    first_byte_timeout: {
      text: 'The model did not start answering in time (a large model can take minutes to load). Retry, or allow it longer in the settings.',
      actions: retryOrSettings,
    },
    idle_timeout: {
      text: 'The model stopped adding to its answer in the middle of it. What arrived is kept; Retry asks again.',
      actions: retryOnly,
    },
    answer_too_long: {
      text: 'The answer grew past the largest answer kept, and was cut there. What arrived is kept: ask for a shorter answer or a smaller step, or raise the limit in the settings and Retry.',
      actions: ['settings', 'retry'],
    },
    not_ollama: {
      text: 'The address in the settings answers, but not like Ollama. Check the Ollama address in the settings.',
      actions: ['settings', 'retry'],
    },
  }
}

const sentences: Record<Provider, Record<string, ErrorSentence>> = {
  ollama: sentencesFor(serverWords.ollama),
  openai: sentencesFor(serverWords.openai),
}

/**
 * The sentence for an error of a run, naming the server of provider (Ollama by default). A code
 * without words of its own (an HTTP error, a key wanted, a failure inside the app) keeps the
 * Go side's message, which is already one sentence.
 */
export function errorSentence(code: string | undefined, message: string, provider: Provider = 'ollama'): ErrorSentence {
  if (code && goesOnCodes.has(code)) return { text: asSentence(message), actions: [] }
  const known = code ? sentences[provider === 'openai' ? 'openai' : 'ollama'][code] : undefined
  if (known) return known
  return { text: asSentence(message) || 'The run failed.', actions: ['retry'] }
}
