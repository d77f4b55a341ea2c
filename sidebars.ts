/**
 * The `docs` sidebar (titled Docs) for the hand-written pages — intro,
 * concepts, examples, guides and migration guides — hand-listed, with intro first so it is the
 * version's main doc. The API reference has its own docs instance and
 * sidebar (sidebars-api.ts).
 */
import type { SidebarsConfig } from "@docusaurus/plugin-content-docs";

const sidebars: SidebarsConfig = {
  docs: [
    "intro",
    {
      type: "category",
      label: "Concepts",
      collapsed: false,
      items: [
        "concepts/state-management",
        "concepts/event-sourcing",
        "concepts/configuration",
        "concepts/reactions-in-production",
        "concepts/guarantees",
        "concepts/how-it-runs",
        "concepts/changing-your-model",
      ],
    },
    {
      type: "category",
      label: "Examples",
      collapsed: false,
      items: ["examples/calculator", "examples/wolfdesk"],
    },
    {
      type: "category",
      label: "Guides",
      collapsed: false,
      items: [
        "guides/getting-started",
        "guides/choosing",
        "guides/testing",
        "guides/http",
        "guides/sqlite",
        "guides/postgres-in-production",
        "guides/moving-a-store",
        "guides/deploying-and-upgrading",
        "guides/release-notes",
        "guides/scaling-reactions",
        "guides/multi-tenancy",
        "guides/production-checklist",
        "guides/projections",
        "guides/workflows-and-timers",
        "guides/personal-data",
        "guides/archiving",
        "guides/observability",
        "guides/inspector",
        "guides/errors",
        "guides/performance",
        "guides/faq",
      ],
    },
    {
      type: "category",
      label: "Migrating",
      collapsed: false,
      items: ["guides/migrating-from-rotorsoft-act", "guides/migrating-from-emmett"],
    },
  ],
};

export default sidebars;
