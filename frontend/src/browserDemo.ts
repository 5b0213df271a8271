// The window outside the desktop app, for development only: `npm run dev` in a plain browser and
// the streaming benchmark (bench/stream-bench.mjs, a `vite build --mode bench`). The page runs on
// the in-memory FakeBackend, and `?prompt=…` starts a scripted run (see demo.ts). main.tsx loads
// this module only when the build allows the demo, so the production bundle holds none of it.

import type { Backend } from './backend'
import { installDemo, runDemo } from './demo'
import { FakeBackend } from './fakeBackend'
import type { AppStore } from './state/store'

export interface BrowserDemo {
  backend: Backend
  /** Called once the store has started: sends `?prompt=…` when given. */
  started(store: AppStore): void
}

export function browserDemo(params: URLSearchParams): BrowserDemo {
  const fake = new FakeBackend()
  installDemo(fake, params)
  return {
    backend: fake,
    started(store) {
      // `?prompt=…` sends at once: a scripted run for measurements without typing.
      const prompt = params.get('prompt')
      if (prompt) void runDemo(store, prompt, params)
    },
  }
}
