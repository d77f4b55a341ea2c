// Accessibility: axe-core on one page of each kind, in
// both colour modes: no serious or critical violations.
import AxeBuilder from "@axe-core/playwright";
import { API_PAGE, CONCEPT, EXAMPLE, INTRO, NOT_FOUND, RESOURCE_404, expect, open, test } from "./site";

const PAGES = [
  ["intro", INTRO],
  ["concept page", CONCEPT],
  ["example page", EXAMPLE],
  ["API page", API_PAGE],
  // Its badge's colours differ from the API page's stable one.
  ["guide with an experimental badge", "/act-root/docs/guides/http"],
  ["not-found page", NOT_FOUND],
] as const;

for (const mode of ["light", "dark"] as const) {
  for (const [name, path] of PAGES) {
    test(`accessibility: axe finds no serious or critical violations on the ${name} (${mode})`, async ({
      page,
      consoleLog,
    }) => {
      test.setTimeout(90_000); // axe on a long page takes a while on two cores
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
        .map((v) => {
          // One line per distinct finding (e.g. per colour pair), with an example element.
          const findings = new Map<string, { example: string; count: number }>();
          for (const node of v.nodes) {
            const summary = (node.failureSummary ?? "").split("\n").slice(1).join(" ").trim();
            const key = summary.replace(/\(.*?font size[^)]*\)/, "").trim();
            const seen = findings.get(key);
            if (seen) seen.count++;
            else findings.set(key, { example: node.target.join(" "), count: 1 });
          }
          return {
            rule: v.id,
            impact: v.impact,
            help: v.help,
            findings: [...findings].map(([finding, { example, count }]) => `${count}× ${finding} — e.g. ${example}`),
          };
        });
      expect(serious).toEqual([]);
    });
  }
}
