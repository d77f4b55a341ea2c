import { operationsModelSuite } from "../../act/test/operations.model.js";
import { freshStores } from "./support.js";

operationsModelSuite("PostgreSQL", freshStores("operations_model"));
