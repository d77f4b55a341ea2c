import { InMemoryStore } from "../src/index.js";
import { copySuite } from "./copy.suite.js";

copySuite("memory → memory", {
  source: async () => new InMemoryStore(),
  target: async () => new InMemoryStore(),
});
