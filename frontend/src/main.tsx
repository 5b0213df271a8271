import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { hasWailsBackend, wailsBackend, type Backend } from './backend'
import { installDemo, runDemo } from './demo'
import { FakeBackend } from './fakeBackend'
import { AppStore } from './state/store'
import { StoreContext } from './state/useAppState'
import './style.css'

// In the desktop window the Go side is bound; in a plain browser (`npm run dev`) the window
// runs on an in-memory backend so the layout can be worked on without the app.
let backend: Backend
const params = new URLSearchParams(location.search)
if (hasWailsBackend()) {
  backend = wailsBackend()
} else {
  const fake = new FakeBackend()
  installDemo(fake, params)
  backend = fake
}
const store = new AppStore({ backend })
void store.start().then(() => {
  // `?prompt=…` sends at once: a scripted run for measurements without typing (see demo.ts).
  const prompt = params.get('prompt')
  if (prompt && !hasWailsBackend()) void runDemo(store, prompt, params)
})

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoreContext.Provider value={store}>
      <App />
    </StoreContext.Provider>
  </StrictMode>,
)
