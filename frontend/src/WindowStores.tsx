import type { ReactNode } from 'react'
import { DevServersContext } from './components/DevServers'
import { PreviewContext } from './components/PreviewPane'
import type { DevServerStore } from './state/devServers'
import type { PreviewStore } from './state/preview'
import type { AppStore } from './state/store'
import { StoreContext } from './state/useAppState'

/**
 * Gives the window's stores to what it wraps: the app's, the preview's and, where there is one,
 * the development servers'. main.tsx wraps the window in it, and the tests that mount the window
 * with these stores do the same.
 */
export function WindowStores({
  store,
  preview,
  servers,
  children,
}: {
  store: AppStore
  preview: PreviewStore
  servers?: DevServerStore
  children: ReactNode
}) {
  return (
    <StoreContext.Provider value={store}>
      <PreviewContext.Provider value={preview}>
        {servers ? <DevServersContext.Provider value={servers}>{children}</DevServersContext.Provider> : children}
      </PreviewContext.Provider>
    </StoreContext.Provider>
  )
}
