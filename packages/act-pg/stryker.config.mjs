// Mutation testing of the PostgreSQL store's commit, lease and
// acknowledgement code: StrykerJS changes one thing at a time and runs the
// tests that cover it; a change no test notices is a survivor, a gap in the
// tests. The tests need a PostgreSQL server: run it with
// `npm run test:mutation` (here or at the repository root), which starts one
// disposable server for the whole run and hands it over in `DATABASE_URL`,
// so no mutant starts a server of its own; each worker gets a database of its
// own on it (see test/global-setup.ts). Too slow for `npm test`; a scheduled
// workflow runs it. Reports: reports/mutation/. Shared settings:
// scripts/mutation-config.mjs.
import { mutationConfig } from "../../scripts/mutation-config.mjs";

export default mutationConfig({
  // Whole files: commit, inline commit and idempotency keys; poll, lease, ack, block and the operator's calls on reaction streams; a projection's writes acknowledged in their transaction.
  mutate: ["src/append.ts", "src/leases.ts", "src/projections.ts"],
  // Tests reach the store through the package's index and the shared suites, so vitest's related-file lookup would select them all: the mutation config lists the ones to run instead.
  related: false,
  // In place: the tests resolve the core through paths beside this package, which a sandbox copy lacks.
  inPlace: true,
  // A mutant that makes a drain or a retry loop spin is found by its timeout: keep it short, as each one also restarts a worker.
  timeoutMS: 5000,
});
