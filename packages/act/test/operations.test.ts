import { disposeAndExit, InMemoryStore, store } from "../src/index.js";
import { operationsSuite } from "./operations.suite.js";

operationsSuite("InMemoryStore", async () => {
  await disposeAndExit();
  return store(new InMemoryStore());
});
