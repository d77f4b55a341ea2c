/**
 * The test app's API behind a real Node server on a free port
 * (@hono/node-server), as an app serves it in production on Node.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { ActHttp } from "../src/index.js";

/** A running server: its URL and a graceful stop (the API's, then the server's). */
export type Running = { url: string; close(): Promise<void> };

export function listen(api: ActHttp): Promise<Running> {
  return new Promise((resolve) => {
    const server = serve({ fetch: api.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
      resolve({
        url: `http://127.0.0.1:${(info as AddressInfo).port}`,
        async close() {
          const closed = new Promise<void>((done) => server.close(() => done()));
          await api.close();
          await closed;
        },
      });
    });
  });
}
