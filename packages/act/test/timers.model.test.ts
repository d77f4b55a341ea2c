import { disposeAndExit, InMemoryStore, store } from "../src/index.js";
import { timersModelSuite } from "./timers.model.js";

timersModelSuite("in memory", async () => {
  await disposeAndExit();
  return store(new InMemoryStore());
});
