import { disposeAndExit, InMemoryStore, store } from "../src/index.js";
import { evolutionSuite } from "./evolution.suite.js";

evolutionSuite("InMemoryStore", async () => {
  await disposeAndExit();
  return store(new InMemoryStore());
});
