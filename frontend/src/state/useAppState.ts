// React's view of the store: a context that holds it and a selector hook over
// useSyncExternalStore. Selectors return parts of the immutable state, so a component
// re-renders only when its part changed.

import { createContext, useContext, useSyncExternalStore } from 'react'
import type { AppState, AppStore } from './store'

export const StoreContext = createContext<AppStore | null>(null)

export function useStore(): AppStore {
  const store = useContext(StoreContext)
  if (!store) throw new Error('The store is missing: render the component inside a <StoreContext.Provider>.')
  return store
}

export function useAppState<T>(select: (s: AppState) => T): T {
  const store = useStore()
  return useSyncExternalStore(store.subscribe, () => select(store.getState()))
}
