import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The console: a static SPA the gateway serves at `/`; it talks to the public `/v1` API only. */
export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/v1': 'http://127.0.0.1:8080' } },
  test: { include: ['src/**/*.spec.ts'], environment: 'node' },
});
