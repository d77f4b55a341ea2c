import type { Actor, Target } from "@act-root/act";
import { agent, customer, supervisor } from "../src/index.js";

export const carla = customer("carla", "Carla");
export const dave = customer("dave", "Dave");
export const ada = agent("ada", "Ada");
export const linus = agent("linus", "Linus");
export const sam = supervisor("sam", "Sam");

let n = 0;
/** A fresh ticket stream: the in-memory store is shared by every test of a file. */
export const newTicket = () => `ticket-${++n}`;

/** The target of an action on `stream` by `actor`. */
export const by = (actor: Actor, stream: string): Target => ({ stream, actor });
