import { disposeAndExit, InMemoryStore, store } from "../src/index.js";
import { operationsModelSuite } from "./operations.model.js";

operationsModelSuite("in memory", async () => {
  await disposeAndExit();
  return store(new InMemoryStore());
});
