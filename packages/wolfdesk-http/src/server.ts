/**
 * Serving the WolfDesk API on Node with `@hono/node-server`, and stopping
 * so that no request is cut off: the server stops accepting connections,
 * the API answers the requests in flight and ends its event streams, and
 * only then are the app's consumer and the store closed.
 */
import type { AddressInfo } from "node:net";
import type { Authenticate } from "@act-root/act-http";
import { app } from "@act-root/wolfdesk";
import { serve } from "@hono/node-server";
import { api } from "./http.js";

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
  const http = api(options.authenticate);
  return new Promise((resolve) => {
    const server = serve({ fetch: http.fetch, port: options.port, hostname: "127.0.0.1" }, (info) => {
      resolve({
        url: `http://127.0.0.1:${(info as AddressInfo).port}`,
        async close() {
          // No new connections; resolves once every open one has been answered.
          const closed = new Promise<void>((done, fail) => server.close((error) => (error ? fail(error) : done())));
          // Ends the event streams (which would keep their connections open) and waits for the requests in flight.
          await http.close();
          await closed;
          await app.stop();
        },
      });
    });
  });
}
