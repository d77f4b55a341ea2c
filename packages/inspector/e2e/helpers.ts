/** What the browser tests share: the test servers by name, and signing in to one. */
import { expect, type Page } from "@playwright/test";

/** The test servers (e2e/servers.ts), by name. */
export type Server = "readOnly" | "operations" | "app" | "down" | "sqliteReadOnly" | "sqliteOperations" | "sizes";
const printed: Record<Server, () => string> = {
  readOnly: () => process.env.INSPECTOR_READONLY_URL!,
  operations: () => process.env.INSPECTOR_OPERATIONS_URL!,
  app: () => process.env.INSPECTOR_APP_URL!,
  down: () => process.env.INSPECTOR_DOWN_URL!,
  sqliteReadOnly: () => process.env.INSPECTOR_SQLITE_READONLY_URL!,
  sqliteOperations: () => process.env.INSPECTOR_SQLITE_OPERATIONS_URL!,
  sizes: () => process.env.INSPECTOR_SIZES_URL!,
};
export const origin = (server: Server) => new URL(printed[server]()).origin;

/** A new one-use link to the server, as `RunningServer.link()` makes it: each test signs in with its own. */
export async function link(server: Server): Promise<string> {
  const res = await fetch(`${process.env.INSPECTOR_LINKS}/${server}`);
  expect(res.status).toBe(200);
  return res.text();
}

/** Opens the inspector with a one-use link (which signs the tab in) and then goes to a view. */
export async function open(page: Page, server: Server, hash = "#/") {
  await page.goto(await link(server));
  await expect(page.getByRole("heading", { level: 1, name: "Streams" })).toBeVisible();
  if (hash !== "#/") await page.goto(`${origin(server)}/${hash}`);
}
