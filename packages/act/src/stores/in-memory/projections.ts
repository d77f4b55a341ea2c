/**
 * Projections: `project` runs a projection's handlers with no handle (the
 * read model lives in the process's memory, like the store), then
 * acknowledges the lease (`ack` in `leases.ts`).
 */
import type { Lease } from "../../types/lease.js";
import type { Leases } from "./leases.js";

/** Runs `work` when `lease` is still the caller's, then acknowledges it; returns whether it was. */
export async function project(leases: Leases, lease: Lease, work: (tx: undefined) => unknown): Promise<boolean> {
  if (!leases.held(lease)) return false;
  await work(undefined);
  return leases.ack([lease]).length > 0;
}
