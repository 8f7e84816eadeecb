/**
 * The console's build: relative asset paths (`base: "./"`), so the same files run at `/console`
 * on core-api, on any static host and from a local folder; no inlined assets (the page's
 * Content-Security-Policy allows `data:` for images only); source maps; and the first-load
 * budget: at most 250 KiB of gzipped JavaScript before the page runs, with the code that signs
 * Solana transactions and the proof checks out of it (loaded on demand).
 * @module
 */
import { defineConfig } from "vite";
import { firstLoadBudget } from "./build/first-load-budget.js";

export default defineConfig({
  base: "./",
  build: {
    target: "es2022",
    sourcemap: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    rolldownOptions: {
      // React Query's "use client" markers mean nothing in a client-only bundle; Rolldown's
      // timing report is noise in `pnpm build`.
      onLog(level, log, handler) {
        if (log.code === "MODULE_LEVEL_DIRECTIVE" || log.code === "PLUGIN_TIMINGS") {
          return;
        }
        handler(level, log);
      },
    },
  },
  plugins: [
    firstLoadBudget({
      maxGzipBytes: 250 * 1024,
      forbidden: [
        /[\\/]wallet[\\/]legacy-transaction\.ts$/,
        /[\\/]pages[\\/]staking[\\/]/,
        /@solana[\\/]web3\.js/,
        /[\\/]packages[\\/]verifier[\\/]/,
      ],
    }),
  ],
});
