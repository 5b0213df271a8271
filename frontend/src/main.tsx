import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { hasWailsBackend, wailsBackend } from './backend'
import { FakeBackend } from './fakeBackend'
import { AppStore } from './state/store'
import { StoreContext } from './state/useAppState'
import './style.css'

// In the desktop window the Go side is bound; in a plain browser (`npm run dev`) the window
// runs on an in-memory backend so the layout can be worked on without the app.
const backend = hasWailsBackend() ? wailsBackend() : new FakeBackend()
const store = new AppStore({ backend })
void store.start()

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoreContext.Provider value={store}>
      <App />
    </StoreContext.Provider>
  </StrictMode>,
)
