import { InMemoryStore } from "../src/index.js";
import { closeModelSuite } from "./close.model.js";

closeModelSuite("in memory", async () => new InMemoryStore());
