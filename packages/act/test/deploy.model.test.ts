import { disposeAndExit, InMemoryStore, store } from "../src/index.js";
import { deployModelSuite } from "./deploy.model.js";

deployModelSuite("in memory", async () => {
  await disposeAndExit();
  return store(new InMemoryStore());
});
