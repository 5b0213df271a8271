import { defineConfig } from 'vite'

// JSX is compiled by esbuild with the automatic runtime; no React plugin is needed.
//
// Modes: `vite build` (production) is what the desktop app embeds, with no demo code;
// `vite build --mode bench` is the same bundle with the in-memory demo backend, for the
// streaming benchmark (bench/stream-bench.mjs); `vite` (development) and the tests have it too.
export default defineConfig(({ mode }) => ({
  esbuild: { jsx: 'automatic' },
  define: { __BROWSER_DEMO__: JSON.stringify(mode !== 'production') },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
  },
}) as any)
