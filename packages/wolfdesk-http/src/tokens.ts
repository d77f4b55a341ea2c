/**
 * A stand-in for real authentication: fixed bearer tokens for WolfDesk's
 * people, checked by the package's `bearerTokens` (constant-time, and a
 * `Map`, so `Bearer constructor` is just an unknown token). In a real
 * service the token is a session or a JWT your identity provider issued,
 * and the actor comes from its verified claims — never from the request body.
 */
import type { Authenticate } from "@act-root/act-http";
import { bearerTokens } from "@act-root/act-http";
import { AGENTS, customer, SUPERVISOR } from "@act-root/wolfdesk";

/** The demo token of a person: `wolfdesk-demo-carla`, `wolfdesk-demo-ada`, … */
export const demoToken = (name: string) => `wolfdesk-demo-${name}`;

/**
 * `Authorization: Bearer wolfdesk-demo-carla` → Carla, a customer;
 * `wolfdesk-demo-dave` → Dave, another customer; `wolfdesk-demo-sam` → Sam,
 * a supervisor; `wolfdesk-demo-ada` (`linus`, `grace`) → that agent.
 */
export const demoTokens: Authenticate = bearerTokens([
  [demoToken("carla"), customer("carla", "Carla")],
  [demoToken("dave"), customer("dave", "Dave")],
  [demoToken("sam"), SUPERVISOR],
  ...AGENTS.map((a) => [demoToken(a.id.split(":")[1]!), a] as const),
]);
