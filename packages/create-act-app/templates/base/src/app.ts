/**
 * The app: the states, the reaction and the projection, bound to the store
 * it is given — so nothing depends on which module ran first, and a test can
 * hand it a store of its own.
 */
import { act, type Store, state } from "@act-root/act";
import { z } from "zod";
import { OpenTasks } from "./open-tasks.js";
import { TodoList } from "./todo.js";

/** A second state: how many tasks were completed, in any list. */
export const Stats = state("Stats", z.object({ completed: z.number() }))
  .init(() => ({ completed: 0 }))
  .emits({ Counted: z.object({ list: z.string() }) })
  .patch({ Counted: (_, stats) => ({ completed: stats.completed + 1 }) })
  .on("count", z.object({ list: z.string() }))
  .emit(({ list }) => ["Counted", { list }])
  .build();

/** The actor of the reaction's actions. */
const bot = { id: "stats-bot", name: "Stats bot" };

/** Builds the app on `store` (seed it before use: `await store.seed()`). */
export function buildApp(store: Store) {
  return (
    act()
      .with(TodoList)
      .with(Stats)
      .with(OpenTasks)
      // The reaction: every completed task, in any list, is counted on the stream "stats".
      .on("TaskCompleted")
      .do(async function countCompleted(event, stream, app) {
        // Passing `event` keeps the chain of cause and effect (one correlation id).
        await app.do("count", { stream, actor: bot }, { list: event.stream }, { reactingTo: event });
      })
      .to("stats")
      .build({ store })
  );
}

/** The app's type, for the modules that take one. */
export type App = ReturnType<typeof buildApp>;
