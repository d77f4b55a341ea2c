import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { webcrypto } from "node:crypto";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const entry = fileURLToPath(new URL("./browser/app.ts", import.meta.url));

describe("in a browser", () => {
  it("bundles for platform browser and runs without Node built-ins", async () => {
    const bundle = await build({
      entryPoints: [entry],
      bundle: true,
      platform: "browser",
      format: "iife",
      globalName: "BrowserApp",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const inputs = Object.keys(bundle.metafile.inputs);
    expect(inputs.some((i) => i.startsWith("node:") || /\/(fs|path|os|worker_threads)$/.test(i))).toBe(false);
    // Only what a browser page has: no process, require, module, Buffer.
    const sandbox = {
      console: { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {} },
      setTimeout,
      clearTimeout,
      setInterval,
      clearInterval,
      queueMicrotask,
      structuredClone,
      AbortController,
      crypto: webcrypto,
      TextEncoder,
      TextDecoder,
      URL,
    };
    const context = vm.createContext(sandbox);
    vm.runInContext(`${bundle.outputFiles[0].text}; globalThis.BrowserApp = BrowserApp;`, context);
    expect(vm.runInContext("typeof process + typeof require + typeof Buffer", context)).toBe(
      "undefinedundefinedundefined"
    );
    const result = await vm.runInContext("BrowserApp.run()", context);
    expect({ ...result }).toEqual({ count: 6, mirrored: 6, snaps: 1, events: 3 + 1 + 3 + 1 });
  });
});
