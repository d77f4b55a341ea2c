/**
 * `npm start` (or `npm run dev`, which reruns it on every change): adds two
 * tasks to a list, completes one, runs the reaction and the projection, and
 * prints what they recorded. Every run adds to what the store already holds.
 */
import { disposeAndExit } from "@act-root/act";
import { buildApp, Stats } from "./app.js";
import { readOpenTasks } from "./open-tasks.js";
import { openStore } from "./store.js";
import { TodoList } from "./todo.js";

const store = openStore();
await store.seed(); // creates the store's tables on the first run; harmless later
const app = buildApp(store);

// Every action names its stream and who asked for it.
const target = { stream: "list-1", actor: { id: "u-1", name: "Ada" } };
const [added] = await app.do("add", target, { title: "Write the first test" });
await app.do("add", target, { title: "Ship it" });
// The task just added is the list's last (tasks are kept in the order they were added).
await app.do("complete", target, { id: Object.keys(added.state.tasks).at(-1)! });

// Reactions and projections run when the app drains: drain until nothing is left.
let drained = await app.drain();
while (drained.acked.length > 0) drained = await app.drain();

const list = await app.load(TodoList, "list-1");
console.log(`list-1: ${Object.keys(list.state.tasks).length} tasks`);
console.log(`completed in all lists: ${(await app.load(Stats, "stats")).state.completed}`);
console.log("open tasks:", await readOpenTasks("list-1"));

await disposeAndExit(); // closes the store, so the process can end
