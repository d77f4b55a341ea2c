// Accessibility (site.md "Tests"): axe-core on one page of each kind, in
// both colour modes: no serious or critical violations.
import AxeBuilder from "@axe-core/playwright";
import { API_PAGE, CONCEPT, EXAMPLE, INTRO, NOT_FOUND, RESOURCE_404, expect, open, test } from "./site";

const PAGES = [
  ["intro", INTRO],
  ["concept page", CONCEPT],
  ["example page", EXAMPLE],
  ["API page", API_PAGE],
  ["not-found page", NOT_FOUND],
] as const;

for (const mode of ["light", "dark"] as const) {
  for (const [name, path] of PAGES) {
    test(`§2 accessibility: axe finds no serious or critical violations on the ${name} (${mode})`, async ({ page, consoleLog }) => {
      if (path === NOT_FOUND) consoleLog.allow(RESOURCE_404);
      await page.addInitScript((theme) => {
        try {
          window.localStorage.setItem("theme", theme);
        } catch {}
      }, mode);
      await open(page, path);
      await expect(page.locator("html")).toHaveAttribute("data-theme", mode);
      const { violations } = await new AxeBuilder({ page }).analyze();
      const serious = violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => ({
          rule: v.id,
          impact: v.impact,
          help: v.help,
          nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")} — ${n.failureSummary?.split("\n")[1]?.trim() ?? ""}`),
        }));
      expect(serious).toEqual([]);
    });
  }
}
