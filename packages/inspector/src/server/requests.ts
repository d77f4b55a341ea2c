import type { IncomingMessage } from "node:http";
import { HttpError } from "./responses.js";

/** The largest request body read, in bytes. */
const MAX_BODY = 64 * 1024;
/** The largest page a list endpoint sends. */
const MAX_LIMIT = 500;

/** A query parameter that must be there, and not too long. */
export function required(url: URL, name: string): string {
  const value = url.searchParams.get(name);
  if (!value) throw new HttpError(400, `The "${name}" parameter is missing.`);
  if (value.length > 1_000) throw new HttpError(400, `The "${name}" parameter is too long.`);
  return value;
}

/** A query parameter that is an event id or a version, when given. */
export function optionalId(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (value === null || value === "") return undefined;
  if (!/^-?\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new HttpError(400, `"${name}" must be a whole number, not ${JSON.stringify(value.slice(0, 40))}.`);
  return Number(value);
}

/** The page size asked for (`limit`), from 1 to MAX_LIMIT, or `fallback`. */
export function limitOf(url: URL, fallback: number): number {
  const value = url.searchParams.get("limit");
  if (value === null) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT)
    throw new HttpError(400, `"limit" must be a whole number from 1 to ${MAX_LIMIT}.`);
  return n;
}

/** The reaction streams an operator command names: `{ "streams": ["name", …] }`. */
export async function streamsBody(req: IncomingMessage): Promise<string[]> {
  const body = await jsonBody(req);
  const streams = (body as { streams?: unknown })?.streams;
  if (!Array.isArray(streams) || streams.length === 0 || !streams.every((s) => typeof s === "string" && s.length > 0))
    throw new HttpError(400, 'Give the streams as { "streams": ["name", …] }.');
  return streams;
}

/** A JSON body, at most MAX_BODY bytes. */
export async function jsonBody(req: IncomingMessage): Promise<unknown> {
  // A JSON body forces a browser to ask before sending it from another
  // origin (a CORS preflight this server never approves).
  if (!(req.headers["content-type"] ?? "").startsWith("application/json"))
    throw new HttpError(415, "Send JSON (Content-Type: application/json).");
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, "The request body is too large.");
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "The request body is not valid JSON.");
  }
}

/** Whether a Host (or Origin) header names this server: 127.0.0.1, localhost or [::1] on its port. */
export function allowedHost(header: string | undefined, port: number): boolean {
  if (!header) return false;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(header.toLowerCase());
}

/** Why a POST is refused as cross-site, or undefined when it comes from this server's own page (or no browser). */
export function crossSite(req: IncomingMessage, port: number): string | undefined {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin")
    return `Refused: the request came from another site (Sec-Fetch-Site: ${site}).`;
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedHost(origin.replace(/^http:\/\//, ""), port))
    return "Refused: the request came from another origin.";
  return undefined;
}

/** The path and every query parameter decode, and none holds a NUL. */
export function wellFormed(url: URL): boolean {
  try {
    const parts = [url.pathname, ...url.search.slice(1).split("&")];
    return parts.every((part) => !decodeURIComponent(part.replace(/\+/g, " ")).includes("\0"));
  } catch {
    return false;
  }
}

/** The credential of `Authorization: Bearer <credential>`, or "" (which matches no session). */
export function bearerOf(req: IncomingMessage): string {
  const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? "");
  return match ? match[1] : "";
}
