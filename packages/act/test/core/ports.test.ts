import { afterEach, describe, expect, it, vi } from "vitest";
import {
  act,
  build_tracer,
  dispose,
  disposeAndExit,
  InMemoryStore,
  logger,
  port,
  store,
  type Logger,
} from "../../src/index.js";
import { Counter } from "../fixtures.js";

const actor = { id: "u-1", name: "Ada" };

const saved = { ...process.env };
afterEach(async () => {
  process.env = { ...saved };
  vi.restoreAllMocks();
  await disposeAndExit();
  // The next test starts with a usable store, as a new process would.
  store(new InMemoryStore());
});

describe("port", () => {
  it("creates the adapter once, on first use, and returns it after", () => {
    const injector = vi.fn(
      (adapter?: { dispose: () => Promise<void>; id: number }) => adapter ?? { id: 1, dispose: async () => {} }
    );
    const get = port(injector);
    expect(injector).not.toHaveBeenCalled();
    const first = get({ id: 7, dispose: async () => {} });
    expect(first.id).toBe(7);
    expect(get().id).toBe(7);
    expect(get({ id: 9, dispose: async () => {} }).id).toBe(7);
    expect(injector).toHaveBeenCalledTimes(1);
  });

  it("store defaults to an InMemoryStore and accepts another adapter first", async () => {
    vi.resetModules();
    const fresh = await import("../../src/index.js");
    expect(fresh.store()).toBeInstanceOf(fresh.InMemoryStore);
    await fresh.disposeAndExit();
    const custom = new fresh.InMemoryStore();
    expect(fresh.store(custom)).toBe(custom);
    expect(fresh.store()).toBe(custom);
    await fresh.disposeAndExit();
  });

  it("refuses to hand out a new default adapter after disposal outside tests: a write after shutdown fails loudly", async () => {
    await disposeAndExit();
    const real = new InMemoryStore();
    store(real);
    const app = act().with(Counter).build();
    await app.do("increment", { stream: "c", actor }, { by: 1 });
    await disposeAndExit();
    vi.stubEnv("NODE_ENV", "development"); // after the exit-free disposal: what a real process sees
    expect(() => store()).toThrow(/"store" port was disposed by disposeAndExit/);
    await expect(app.do("increment", { stream: "c", actor }, { by: 1 })).rejects.toThrow(/"store" port was disposed/);
    // Passing an adapter is the explicit way back.
    const next = new InMemoryStore();
    expect(store(next)).toBe(next);
    await expect(app.do("increment", { stream: "c", actor }, { by: 1 })).resolves.toHaveLength(1);
    vi.unstubAllEnvs();
  });

  it("under NODE_ENV=test, gives a fresh default store after disposal, so afterEach(dispose()) works", async () => {
    const first = store();
    const app = act().with(Counter).build();
    await app.do("increment", { stream: "t", actor }, { by: 1 });
    const afterEachHook = dispose(); // what `afterEach(dispose())` registers
    await afterEachHook();
    const next = store();
    expect(next).toBeInstanceOf(InMemoryStore);
    expect(next).not.toBe(first);
    // The next test starts clean: the stream is new again.
    const [snap] = await app.do("increment", { stream: "t", actor }, { by: 1 });
    expect(snap.state.count).toBe(1);
    expect(snap.event?.version).toBe(0);
  });

  it("sends calls made while an adapter is being disposed to that adapter", async () => {
    let release!: () => void;
    const closing = new Promise<void>((r) => (release = r));
    const real = new InMemoryStore();
    const commit = vi.spyOn(real, "commit");
    real.dispose = async () => closing;
    await disposeAndExit();
    store(real);
    const app = act().with(Counter).build();
    const shutdown = disposeAndExit();
    await Promise.resolve();
    await app.do("increment", { stream: "c", actor }, { by: 1 });
    expect(commit).toHaveBeenCalledTimes(1);
    expect(store()).toBe(real);
    release();
    await shutdown;
    vi.stubEnv("NODE_ENV", "development");
    expect(() => store()).toThrow(/disposed/);
    vi.unstubAllEnvs();
    store(new InMemoryStore());
  });

  it("installs signal handlers only when dispose() is called, never on first use of a port", async () => {
    vi.resetModules();
    const fresh = await import("../../src/core/ports.js");
    const before = process.listenerCount("SIGTERM");
    fresh.store();
    fresh.logger.info("hello");
    expect(process.listenerCount("SIGTERM")).toBe(before);
    fresh.dispose();
    expect(process.listenerCount("SIGTERM")).toBe(before + 1);
    expect(process.listenerCount("SIGINT")).toBeGreaterThan(0);
    await fresh.disposeAndExit();
  });
});

describe("dispose and disposeAndExit", () => {
  it("runs the disposers, then disposes adapters newest first, and does not exit under test", async () => {
    const order: string[] = [];
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    port(function first() {
      return { dispose: async () => void order.push("first adapter") };
    })();
    port(function second() {
      return { dispose: async () => void order.push("second adapter") };
    })();
    const returned = dispose(async () => void order.push("disposer"));
    expect(returned).toBe(disposeAndExit);
    await returned();
    expect(order).toEqual(["disposer", "second adapter", "first adapter"]);
    expect(exit).not.toHaveBeenCalled();
  });

  it("keeps going when a disposer or an adapter fails", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const later = vi.fn(async () => {});
    dispose(async () => {
      throw new Error("disposer failed");
    });
    port(function broken() {
      return { dispose: async () => Promise.reject(new Error("adapter failed")) };
    })();
    port(function fine() {
      return { dispose: later };
    })();
    await disposeAndExit();
    expect(later).toHaveBeenCalled();
    expect(errors).toHaveBeenCalledTimes(2);
  });

  it("accepts disposers that return no promise, or throw", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const closed = vi.fn(() => 42);
    dispose(closed);
    dispose(() => {
      throw new Error("sync failure");
    });
    await expect(disposeAndExit()).resolves.toBeUndefined();
    expect(closed).toHaveBeenCalledTimes(1);
    expect(errors).toHaveBeenCalledWith(expect.objectContaining({ message: "sync failure" }));
  });

  it.each([
    ["EXIT", "development", 0],
    ["ERROR", "development", 1],
    ["EXIT", "production", 0],
  ] as const)("exits %s in %s with code %i", async (code, env, exitCode) => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    process.env.NODE_ENV = env;
    await disposeAndExit(code);
    expect(exit).toHaveBeenCalledWith(exitCode);
  });

  it("exits EXIT with the exit code the app already set", async () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    process.env.NODE_ENV = "production";
    process.exitCode = 1;
    try {
      await disposeAndExit("EXIT");
      expect(exit).toHaveBeenCalledWith(1);
    } finally {
      process.exitCode = undefined;
    }
  });

  it("does not stop a production process on ERROR", async () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    const adapter = vi.fn(async () => {});
    port(function kept() {
      return { dispose: adapter };
    })();
    const quiet: Logger = {
      fatal() {},
      error: vi.fn(),
      warn() {},
      info() {},
      debug() {},
      trace() {},
      dispose: async () => {},
    };
    port(function logger(a?: Logger) {
      return a ?? quiet;
    });
    process.env.NODE_ENV = "production";
    await disposeAndExit("ERROR");
    expect(exit).not.toHaveBeenCalled();
    expect(adapter).not.toHaveBeenCalled();
    process.env.NODE_ENV = "test";
  });

  it("disposes on SIGTERM", async () => {
    const disposer = vi.fn(async () => {});
    dispose(disposer);
    process.emit("SIGTERM");
    await vi.waitFor(() => expect(disposer).toHaveBeenCalledTimes(1));
  });
});

describe("logger", () => {
  it("logs through pino at the configured level", () => {
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    process.env.LOG_LEVEL = "info";
    logger.info({ stream: "s" }, "hello");
    logger.debug("hidden");
    const lines = write.mock.calls.map(([chunk]) => String(chunk));
    write.mockRestore();
    const entries = lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
    expect(entries).toEqual([expect.objectContaining({ level: 30, msg: "hello", stream: "s" })]);
  });

  it("logs in development, pretty-printed when pino-pretty is installed", async () => {
    process.env.NODE_ENV = "development";
    process.env.LOG_LEVEL = "warn";
    expect(() => logger.warn("still works")).not.toThrow();
    await logger.dispose();
  });
});

describe("build_tracer", () => {
  it("traces each drain step at trace level and is silent otherwise", () => {
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    process.env.LOG_LEVEL = "trace";
    const lease = { stream: "s", by: "d", at: 3, retry: 1 };
    const tracer = build_tracer("trace");
    tracer.fetched([{ stream: "s", events: [1, 2] }]);
    tracer.correlated([lease]);
    tracer.leased([lease]);
    tracer.acked([lease]);
    tracer.blocked([{ ...lease, error: "boom" }]);
    const quiet = build_tracer("info");
    quiet.acked([lease]);
    const messages = write.mock.calls.map(([c]) => JSON.parse(String(c)).msg);
    write.mockRestore();
    expect(messages).toEqual(["⚡️ fetched", "⚡️ correlated", "⚡️ leased", "⚡️ acked", "⚡️ blocked"]);
  });
});
