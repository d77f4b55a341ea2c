import { timersModelSuite } from "../../act/test/timers.model.js";
import { freshStores } from "./support.js";

timersModelSuite("PostgreSQL", freshStores("timers_model"));
