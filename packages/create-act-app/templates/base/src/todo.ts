/**
 * The first state: a to-do list. Each list is a stream of events —
 * `TaskAdded`, `TaskCompleted`, `ListClosed` — and its state is what those
 * events add up to. Actions check the list's rules (invariants) against that
 * state, then emit the events to commit.
 */
import { state } from "@act-root/act";
import { z } from "zod";

const Task = z.object({ title: z.string(), done: z.boolean() });

/** Adding and completing tasks need a list that is still open. */
const mustBeOpen = {
  description: "The list must be open",
  valid: (list: { closed: boolean }) => !list.closed,
};

export const TodoList = state("TodoList", z.object({ tasks: z.record(z.string(), Task), closed: z.boolean() }))
  // A list nothing has happened to yet.
  .init(() => ({ tasks: {}, closed: false }))
  // The events, with the schema of their data.
  .emits({
    TaskAdded: z.object({ id: z.string(), title: z.string() }),
    TaskCompleted: z.object({ id: z.string(), title: z.string() }),
    ListClosed: z.object({}),
  })
  // How each event changes the state: return only what changes.
  .patch({
    TaskAdded: ({ data }) => ({ tasks: { [data.id]: { title: data.title, done: false } } }),
    TaskCompleted: ({ data }) => ({ tasks: { [data.id]: { done: true } } }),
    ListClosed: () => ({ closed: true }),
  })
  // The actions: a payload schema, the rules that must hold, the event(s) to emit.
  .on("add", z.object({ title: z.string().min(1) }))
  .given([mustBeOpen])
  .emit(({ title }, { state }) => ["TaskAdded", { id: `t${Object.keys(state.tasks).length + 1}`, title }])
  .on("complete", z.object({ id: z.string() }))
  .given([mustBeOpen])
  .emit(({ id }, { state }) => {
    const task = state.tasks[id];
    // An unknown or finished task: emit nothing, commit nothing.
    if (!task || task.done) return [];
    return ["TaskCompleted", { id, title: task.title }];
  })
  .on("close", z.object({}))
  .given([mustBeOpen])
  .emit(() => ["ListClosed", {}])
  .build();
