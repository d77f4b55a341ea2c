import { evolutionSuite } from "../../act/test/evolution.suite.js";
import { freshStores } from "./support.js";

evolutionSuite("PostgresStore", freshStores("evolution"));
