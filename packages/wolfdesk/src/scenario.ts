/**
 * A day at the help desk, told through the app: a customer opens a ticket,
 * the desk assigns it, the customer waits, the desk escalates when the
 * ticket's deadline passes, a supervisor resolves, the customer closes.
 * Prints what happens and the event log.
 *
 * The reactions run by themselves, on the app's running consumer
 * (`app.start()`, see main.ts): like a real client, the story commits an
 * action and then waits until it can see what the reactions did.
 */
import { type Actor, InvariantError, type Target } from "@act-root/act";
import { app, deskClock } from "./app.js";
import { Escalations } from "./escalations.js";
import { SUPERVISOR } from "./reactions.js";
import { customer, ESCALATIONS, SLA_MILLIS } from "./schemas.js";
import { Ticket } from "./ticket.js";

/**
 * Waits until `check` finds what the reactions were expected to do, and
 * returns it. Fails at once when a reaction stream is blocked (with the
 * reaction's error), and after `timeoutMillis` when nothing happened — the
 * usual cause being that the consumer was not started.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | false | "" | undefined>,
  timeoutMillis = 10_000
): Promise<T> {
  const deadline = Date.now() + timeoutMillis;
  for (;;) {
    const found = await check();
    if (found) return found;
    const [blocked] = await app.blocked();
    if (blocked)
      throw new Error(`Waiting for ${what}: reaction stream "${blocked.stream}" is blocked: ${blocked.error}`);
    if (Date.now() > deadline)
      throw new Error(`Gave up waiting for ${what} after ${timeoutMillis} ms: is the consumer running (app.start())?`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Runs the story on ticket `stream` and returns the ticket's final state.
 * Needs the app's consumer running (`app.start()`) to see its reactions.
 */
export async function run(print: (line: string) => void, stream = `ticket-${Date.now().toString(36)}`) {
  const carla = customer("carla", "Carla");
  const as = (actor: Actor): Target => ({ stream, actor });
  const step = async (what: string, act: () => Promise<unknown>) => {
    try {
      await act();
      print(`✓ ${what}`);
    } catch (error) {
      if (!(error instanceof InvariantError)) throw error;
      print(`✗ ${what}: ${error.description}`);
    }
  };

  await step("Carla opens a ticket", () =>
    app.do("OpenTicket", as(carla), { title: "Printer on fire", message: "It smokes.", priority: "normal" })
  );
  const assigned = await until("the desk to assign the ticket", async () => {
    const { state } = await app.load(Ticket, stream);
    return state.agent;
  });
  const agent: Actor = { id: assigned, name: assigned.split(":")[1] };
  print(`  the desk assigned it to ${assigned}`);

  await step("Carla tries to resolve her own ticket", () =>
    app.do("ResolveTicket", as(carla), { resolution: "Fixed it myself" })
  );
  await step("Carla writes again", () => app.do("AddMessage", as(carla), { body: "Now it beeps." }));
  // Nobody answers: the story skips the hours on the desk's clock, and the
  // ticket's escalation deadline, set when it opened, comes due.
  print(`  no answer for ${SLA_MILLIS.normal / 3_600_000} hours (skipped on the desk's clock)`);
  deskClock.skip(SLA_MILLIS.normal);
  const escalated = await until("the desk to escalate the ticket", async () => {
    const { state } = await app.load(Ticket, stream);
    return state.escalated && state;
  });
  print(`  escalated: ${escalated.escalated}, priority: ${escalated.priority}`);
  const queue = await until("the escalation to reach the supervisors' queue", async () => {
    const { state } = await app.load(Escalations, ESCALATIONS);
    return state.queue.some((e) => e.ticket === stream) && state;
  });
  print(`  supervisors' queue: ${queue.queue.map((e) => `${e.ticket} (${e.reason})`).join(", ")}`);

  await step(`${agent.id} replies`, () =>
    app.do("AddMessage", as(agent), { body: "On my way with a fire extinguisher." })
  );
  await step(`${SUPERVISOR.id} resolves it`, () =>
    app.do("ResolveTicket", as(SUPERVISOR), { resolution: "Replaced the printer" })
  );
  await step("Carla writes after the resolution", () => app.do("AddMessage", as(carla), { body: "Thanks!" }));
  await step("Carla closes the ticket", () => app.do("CloseTicket", as(carla), {}));

  print("");
  print(`events of ${stream}:`);
  const events = await app.queryArray({ stream });
  const correlations = new Map<string, string>();
  for (const event of events) {
    const id = correlations.get(event.meta.correlation) ?? `c${correlations.size + 1}`;
    correlations.set(event.meta.correlation, id);
    const actor = event.meta.causation.action?.actor.id ?? "?";
    const cause = event.meta.causation.event
      ? ` ← ${event.meta.causation.event.name} #${event.meta.causation.event.id}`
      : "";
    print(`  #${event.version} ${String(event.name).padEnd(16)} by ${actor.padEnd(16)} [${id}]${cause}`);
  }
  const { state } = await app.load(Ticket, stream);
  print("");
  print(`final: ${state.status}, resolved by "${state.resolution}", ${state.messages} messages`);
  return state;
}
