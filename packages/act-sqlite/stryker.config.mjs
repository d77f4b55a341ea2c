// Mutation testing of the SQLite store's commit, lease, acknowledgement and
// block code: StrykerJS changes one thing at a time and runs the tests that
// cover it; a change no test notices is a survivor, a gap in the tests.
// `npm run test:mutation` at the repository root runs it (too slow for
// `npm test`; a scheduled workflow runs it). Reports: reports/mutation/.
// Shared settings: scripts/mutation-config.mjs.
import { mutationConfig } from "../../scripts/mutation-config.mjs";

export default mutationConfig({
  // Whole files: commit and inline commit with idempotency keys; poll, lease, ack, block and the operator's calls on reaction streams; project.
  mutate: ["src/append.ts", "src/leases.ts", "src/projections.ts"],
  // Tests reach the store through the package and the shared suites, not by importing the file: run them all (each mutant then only those that cover it).
  related: false,
  // In place: the tests resolve the core through paths beside this package, which a sandbox copy lacks.
  inPlace: true,
});
