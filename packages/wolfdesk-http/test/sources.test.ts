import * as byName from "@act-root/act";
import { expect, test } from "vitest";
import * as bySource from "../../act/src/index.js";

// The tests must run the core as it is in the repository, not its last build
// in dist/ (which a run after editing the core's sources would test instead).
// The wolfdesk app this one serves imports it by the same name.
test("@act-root/act is the core's sources (vitest.sources.ts), not its dist build", () => {
  expect(Object.is(byName, bySource), "@act-root/act resolved to another module than packages/act/src/index.ts").toBe(
    true
  );
});
