/// <reference types="vite/client" />

/**
 * True in a build that may run the window on the in-memory demo backend (`npm run dev`, tests,
 * the benchmark's `--mode bench`); false in the production build, which then holds no demo code.
 */
declare const __BROWSER_DEMO__: boolean
