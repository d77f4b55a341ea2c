/**
 * `@act-root/inspector` — look inside an Act event store from a browser:
 * streams, timelines, state at any version, causation and reactions.
 *
 * Two ways to start it: the `act-inspector` command (store only, e.g.
 * `act-inspector --pg postgres://…` or `act-inspector --sqlite events.db`), or {@link inspect} from inside a
 * process that has the app, which adds what needs the app's code.
 *
 * @packageDocumentation
 */
import type { Act, Tenants } from "@act-root/act";
import { type Catalog, StoreCatalog } from "./server/catalog.js";
import { type RunningServer, startServer } from "./server/http.js";

export type { Catalog, StreamPage, StreamSummary } from "./server/catalog.js";
export { StoreCatalog } from "./server/catalog.js";
export { PgCatalog, type PgCatalogConfig } from "./server/pg-catalog.js";
export { SqliteCatalog } from "./server/sqlite-catalog.js";
export type { RunningServer } from "./server/http.js";

/**
 * Options of {@link inspect}.
 *
 * @experimental
 * @example
 * ```ts
 * const options: InspectOptions = { port: 4400, operations: false };
 * ```
 */
export type InspectOptions = {
  /** Port to listen on, on 127.0.0.1 (default 0: any free port; the URL printed says which). */
  readonly port?: number;
  /** Allow unblocking and resetting reaction streams from the page (default false: read-only). */
  readonly operations?: boolean;
  /**
   * Lists the streams. The default reads the whole log on every listing
   * (fine in memory); with `PostgresStore` pass a `PgCatalog` for the same
   * database, which lists from the table's index.
   */
  readonly catalog?: Catalog;
  /** Print the URL on the console (default true). */
  readonly print?: boolean;
  /**
   * With `inspect(tenants, …)`: the tenant to inspect (required there) — its
   * app, on its store, and nothing of another tenant. The page shows it.
   */
  readonly tenant?: string;
};

/**
 * Starts the inspector in app mode: on the store the app uses (`app.store`:
 * the one it was built with, or the `store()` port's), with the app's
 * states (state at any version, with a diff) and reactions (lag, unblock
 * and reset through the app). Listens on 127.0.0.1
 * only and prints one URL, which opens one browser session, once (a second
 * use is refused); `link()` on the result makes another. Opens nothing.
 *
 * Given the tenants of `act()…buildTenants(…)` and `{ tenant }`, it
 * inspects that tenant's app (`tenants.app(tenant)`): its store only, so
 * another tenant's streams, events, reactions and timers cannot be reached
 * from the page.
 *
 * @experimental
 * @see [Inspector](/docs/guides/inspector) — what each view shows, and running it against production safely.
 * @param target - the app to inspect, or the tenants (with `options.tenant`)
 * @param options - port, operations, catalog, and the tenant
 * @returns the running server: its one-use `url`, `link()` for another, and `close()`
 * @throws Error when tenants are given without a `tenant`; `TenantError` for a tenant not added in this process
 * @example
 * ```ts
 * const inspector = await inspect(app, { port: 4400 });
 * // A second browser needs a one-use URL of its own:
 * console.log(inspector.link());
 * // … later
 * await inspector.close();
 * await inspect(tenants, { tenant: "acme" }); // one tenant's app
 * ```
 */
export async function inspect(
  target: Act<any, any, any> | Tenants<any, any, any>,
  options: InspectOptions = {}
): Promise<RunningServer> {
  const tenant = options.tenant;
  let app: Act<any, any, any>;
  if (target instanceof Object && "tenantOf" in target) {
    if (tenant === undefined)
      throw new Error('inspect(tenants) needs the tenant to inspect: inspect(tenants, { tenant: "acme" })');
    app = target.app(tenant);
  } else app = target;
  const store = app.store;
  const catalog = options.catalog ?? new StoreCatalog(store, "app store");
  const server = await startServer({
    store,
    catalog,
    app,
    ...(tenant !== undefined && { tenant }),
    operations: options.operations === true,
    ...(options.port !== undefined && { port: options.port }),
  });
  if (options.print !== false)
    console.log(`Act Inspector (app mode): ${server.url}\nThe URL works once; link() on the inspector makes another.`);
  return {
    ...server,
    close: async () => {
      await server.close();
      if (!options.catalog) await catalog.close();
    },
  };
}
