/**
 * Starting and stopping the HTTP server so no request is cut off: on
 * shutdown the server stops accepting connections and waits for the
 * requests in flight, and only then are the app's consumer and the store
 * closed.
 */
import type { AddressInfo } from "node:net";
import { app } from "@act-root/wolfdesk";
import { serve } from "@hono/node-server";
import { type Authenticate, api } from "./http.js";

/** A running server: its address, and a graceful stop. */
export type Running = {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Stops accepting requests, waits for those in flight, then stops the app's consumer. */
  close(): Promise<void>;
};

/**
 * Serves the WolfDesk API on `port` (0 picks a free one).
 *
 * @param options - the port and how requests are authenticated
 */
export function start(options: { port: number; authenticate: Authenticate }): Promise<Running> {
  return new Promise((resolve) => {
    const server = serve(
      { fetch: api(options.authenticate).fetch, port: options.port, hostname: "127.0.0.1" },
      (info) => {
        const { port } = info as AddressInfo;
        resolve({
          url: `http://127.0.0.1:${port}`,
          async close() {
            // close() resolves once every open request has been answered.
            await new Promise<void>((done, fail) => server.close((error) => (error ? fail(error) : done())));
            await app.stop();
          },
        });
      }
    );
  });
}
