import { StrictMode, type ReactNode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { hasWailsBackend, wailsBackend, type Backend } from './backend'
import { BackendUnreachable } from './components/BackendUnreachable'
import { ItemBoundary } from './components/ItemBoundary'
import { AppStore } from './state/store'
import { PreviewStore } from './state/preview'
import { DevServerStore } from './state/devServers'
import { bridgeBindings } from './ipcBridge'
import { WindowStores } from './WindowStores'
import { watchEnterTiming } from './state/keyTiming'
import './style.css'

const root = createRoot(document.getElementById('root')!)

function show(node: ReactNode) {
  root.render(
    <StrictMode>
      <ItemBoundary what="window">{node}</ItemBoundary>
    </StrictMode>,
  )
}

function run(backend: Backend, started?: (store: AppStore) => void) {
  const store = new AppStore({ backend })
  watchEnterTiming(backend)
  const preview = new PreviewStore(backend, store)
  preview.start()
  const servers = new DevServerStore(backend)
  servers.start()
  show(
    <WindowStores store={store} preview={preview} servers={servers}>
      <App />
    </WindowStores>,
  )
  void store.start().then(() => started?.(store))
}

// Wails injects its bindings before the page's scripts run; a short grace period covers a slow
// start before the window says that the backend cannot be reached.
async function bindings(graceMs: number): Promise<boolean> {
  for (let waited = 0; !hasWailsBackend() && waited < graceMs; waited += 50) {
    await new Promise((r) => setTimeout(r, 50))
  }
  return hasWailsBackend()
}

async function boot() {
  if (await bindings(__BROWSER_DEMO__ ? 0 : 3000)) {
    bridgeBindings()
    run(wailsBackend())
  } else if (__BROWSER_DEMO__) {
    // A plain browser during development or the benchmark: the in-memory demo backend. The
    // production build has no such branch (and no demo code): it says what is wrong instead.
    const { browserDemo } = await import('./browserDemo')
    const demo = browserDemo(new URLSearchParams(location.search))
    run(demo.backend, demo.started)
  } else {
    show(<BackendUnreachable />)
  }
}

void boot()
