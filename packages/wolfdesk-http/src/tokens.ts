/**
 * A stand-in for real authentication: fixed bearer tokens for WolfDesk's
 * people. In a real service the token is a session or a JWT your identity
 * provider issued, and the actor comes from its verified claims — never from
 * the request body.
 */
import type { Actor } from "@act-root/act";
import { AGENTS, customer, supervisor } from "@act-root/wolfdesk";
import type { Authenticate } from "./http.js";

const people: Record<string, Actor> = {
  "token-carla": customer("carla", "Carla"),
  "token-sam": supervisor("sam", "Sam"),
  // One per agent the desk assigns tickets to: `agent:ada` → `token-ada`.
  ...Object.fromEntries(AGENTS.map((a) => [`token-${a.id.split(":")[1]}`, a])),
};

/** `Authorization: Bearer token-carla` → Carla, a customer; `token-ada` → agent Ada; anything else → undefined. */
export const demoTokens: Authenticate = (authorization) => {
  const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
  return token ? people[token] : undefined;
};
