import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The page is plain React + TypeScript: Vite's built-in transform handles
// the JSX (no plugin needed: the page is built, never hot-reloaded by users).
export default defineConfig({
  root: fileURLToPath(new URL("./src/web", import.meta.url)),
  base: "./",
  build: {
    outDir: fileURLToPath(new URL("./dist/web", import.meta.url)),
    emptyOutDir: true,
    // No source maps in the package: the server would serve them to anyone with the token, and they double its size.
    sourcemap: false,
    reportCompressedSize: true,
  },
  oxc: { jsx: { runtime: "automatic" } },
});
