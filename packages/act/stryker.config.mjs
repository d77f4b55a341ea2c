// Mutation testing of the core's committing, draining and leasing code:
// StrykerJS changes one thing at a time (a condition, an operator, a
// boundary) and runs the tests that cover it; a change no test notices is a
// survivor, a gap in the tests. `npm run test:mutation` at the repository
// root runs it — hours on two cores, so not in `npm test`; a scheduled
// workflow runs it. Reports: reports/mutation/. Shared settings:
// scripts/mutation-config.mjs.
import { mutationConfig } from "../../scripts/mutation-config.mjs";

export default mutationConfig({
  // Committing (event sourcing, inline projections), draining and the in-memory store's commit, lease and acknowledgement.
  mutate: [
    "src/reactions/drain.ts",
    "src/reactions/lease-keeper.ts",
    "src/committing/event-sourcing.ts",
    "src/committing/load.ts",
    "src/committing/inline-commit.ts",
    "src/stores/in-memory/append.ts",
    "src/stores/in-memory/leases.ts",
    "src/stores/in-memory/projections.ts",
  ],
});
