import { deployModelSuite } from "../../act/test/deploy.model.js";
import { freshStores } from "./support.js";

deployModelSuite("PostgreSQL", freshStores("deploy_model"));
