// What an error of a run means to the person at the window: one sentence in their words, and
// what they can do about it (Retry: send the last message again; Settings). The Go side's
// message is kept for the details; the code (ollama.Code, events' error code) picks the words.

export type ErrorAction = 'retry' | 'settings' | 'models'

export interface ErrorSentence {
  text: string
  actions: ErrorAction[]
}

/** Codes of errors that mean the server was not there: they go once it answers again. */
export const serverGoneCodes: ReadonlySet<string> = new Set(['not_running', 'network'])

// The actions a sentence offers, the likeliest first: Retry, Settings where the cause may lie
// there (the server's address, how long to wait), the model menu where the model is the cause.
const retryOrSettings: ErrorAction[] = ['retry', 'settings']
const pickModelOrRetry: ErrorAction[] = ['models', 'retry']
const retryOnly: ErrorAction[] = ['retry']

const sentences: Record<string, ErrorSentence> = {
  not_running: {
    text: 'Ollama is not running, so the model could not answer. Start Ollama; this message goes away once it answers, then Retry.',
    actions: retryOrSettings,
  },
  network: {
    text: 'Ollama could not be reached at the address in the settings. Check that it runs there, then Retry.',
    actions: retryOrSettings,
  },
  model_not_found: {
    text: 'This chat’s model is not on the Ollama server. Pull it or pick another in the model menu (Ctrl+M), then Retry.',
    actions: pickModelOrRetry,
  },
  capability_missing: {
    text: 'This model cannot do what the chat needs (calling tools, or thinking). Pick a model with the “tools” badge (Ctrl+M), then Retry.',
    actions: pickModelOrRetry,
  },
  busy: { text: 'Ollama is busy with other requests. Wait a moment, then Retry.', actions: retryOnly },
  stream_error: {
    text: 'Ollama reported an error in the middle of the answer. What arrived is kept; Retry asks again.',
    actions: retryOnly,
  },
  incomplete_stream: {
    text: 'The answer broke off before it ended (Ollama closed the connection). What arrived is kept; Retry asks again.',
    actions: retryOnly,
  },
  malformed_line: {
    text: 'Ollama sent something that is not an answer. What arrived is kept; Retry asks again.',
    actions: retryOnly,
  },
  line_too_long: {
    text: 'Ollama sent a piece of the answer too large to read. What arrived is kept; Retry asks again.',
    actions: retryOnly,
  },
  first_byte_timeout: {
    text: 'The model did not start answering in time (a large model can take minutes to load). Retry, or allow it longer in the settings.',
    actions: retryOrSettings,
  },
  idle_timeout: {
    text: 'The model stopped sending in the middle of its answer. What arrived is kept; Retry asks again.',
    actions: retryOnly,
  },
  not_ollama: {
    text: 'The address in the settings answers, but not like Ollama. Check the Ollama URL in the settings.',
    actions: ['settings', 'retry'],
  },
}

/**
 * The sentence for an error of a run. A code without words of its own (an HTTP error, a
 * failure inside the app) keeps the Go side's message, which is already one sentence.
 */
export function errorSentence(code: string | undefined, message: string): ErrorSentence {
  const known = code ? sentences[code] : undefined
  if (known) return known
  return { text: message || 'The run failed.', actions: retryOnly }
}
