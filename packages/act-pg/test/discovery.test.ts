import { discoverySuite } from "../../act/test/reactions/discovery.suite.js";
import { freshStores } from "./support.js";

// The core's scenarios of discovery shared through the store, on PostgreSQL:
// positions in the <table>_discovery table, read after them visibility-safe.
discoverySuite("PostgresStore", freshStores("discovery"));
