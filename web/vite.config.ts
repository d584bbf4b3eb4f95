import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const webRoot = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: webRoot,
  // VITE_* variables come from the environment of the build (scripts/dev, CI).
  envDir: webRoot,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    // dist/.vite/manifest.json: which chunk imports which, read by scripts/bundle_budget.py (the
    // first screens' budget). Hosting does not serve dot folders (firebase.json "ignore").
    manifest: true,
  },
  server: {
    // common/collections.json lives outside web/.
    fs: { allow: ['..'] },
  },
  test: {
    root: webRoot,
    include: ['src/**/*.test.ts'],
    environment: 'node',
    // Patience, not a speed check: CI runs these beside the emulators and a browser on 2 cores, where
    // a test's first import (jsdom, marked) has taken longer than vitest's default 5 s.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
