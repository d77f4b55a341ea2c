/**
 * A small shop app for the inspector's tests: an order placed causes a stock
 * reservation, which causes a payment, which causes the order to ship — a
 * causation chain of three hops across three streams. An item named
 * "poison" makes the reservation fail, which blocks its reaction stream.
 */
import { type Actor, act, state } from "@act-root/act";
import { z } from "zod";

const system: Actor = { id: "system", name: "Shop" };

export const Order = state("Order", z.object({ items: z.array(z.string()), total: z.number(), status: z.string() }))
  .init(() => ({ items: [], total: 0, status: "open" }))
  .emits({
    ItemAdded: z.object({ item: z.string(), price: z.number(), note: z.string().optional() }),
    OrderPlaced: z.object({ item: z.string() }),
    OrderShipped: z.object({ carrier: z.string() }),
  })
  .patch({
    ItemAdded: ({ data }, s) => ({ items: [...s.items, data.item], total: s.total + data.price }),
    OrderPlaced: () => ({ status: "placed" }),
    OrderShipped: () => ({ status: "shipped" }),
  })
  .on("AddItem", z.object({ item: z.string(), price: z.number(), note: z.string().optional() }))
  .emit((p) => ["ItemAdded", p])
  .on("PlaceOrder", z.object({ item: z.string() }))
  .emit((p) => ["OrderPlaced", p])
  .on("ShipOrder", z.object({ carrier: z.string() }))
  .emit((p) => ["OrderShipped", p])
  .snap((s) => s.patches >= 3)
  .build();

export const Stock = state("Stock", z.object({ reserved: z.number() }))
  .init(() => ({ reserved: 0 }))
  .emits({ StockReserved: z.object({ order: z.string() }) })
  .patch({ StockReserved: (_, s) => ({ reserved: s.reserved + 1 }) })
  .on("Reserve", z.object({ order: z.string() }))
  .emit((p) => ["StockReserved", p])
  .build();

export const Payment = state("Payment", z.object({ charged: z.boolean() }))
  .init(() => ({ charged: false }))
  .emits({ PaymentCharged: z.object({ order: z.string() }) })
  .patch({ PaymentCharged: () => ({ charged: true }) })
  .on("Charge", z.object({ order: z.string() }))
  .emit((p) => ["PaymentCharged", p])
  .build();

/** The shop's model, not built: `shop()` builds it, `buildTenants` serves it to tenants. */
export function shopModel() {
  return act()
    .with(Order)
    .with(Stock)
    .with(Payment)
    .on("OrderPlaced")
    .do(
      async (event, _stream, app) => {
        if (event.data.item === "poison") throw new Error("the warehouse refused the item");
        await app.do(
          "Reserve",
          { stream: `stock-${event.data.item}`, actor: system },
          { order: event.stream },
          { reactingTo: event }
        );
      },
      { maxRetries: 0 }
    )
    .on("StockReserved")
    .do(async (event, _stream, app) => {
      await app.do(
        "Charge",
        { stream: `payment-${event.data.order}`, actor: system },
        { order: event.data.order },
        { reactingTo: event }
      );
    })
    .on("PaymentCharged")
    .do(async (event, _stream, app) => {
      await app.do("ShipOrder", { stream: event.data.order, actor: system }, { carrier: "owl" }, { reactingTo: event });
    });
}

export function shop() {
  return shopModel().build();
}

export type Shop = ReturnType<typeof shop>;

/** Runs the reactions until nothing is left (blocked streams stay blocked). */
export async function settle(app: Shop) {
  for (let round = 0; round < 30; round++) {
    await app.correlate();
    const { acked, leased } = await app.drain({ streamLimit: 20, eventLimit: 50 });
    if (!acked.length && !leased.length) return;
  }
}

/** Writes the scenario the tests look at. */
export async function scenario(app: Shop) {
  const customer: Actor = { id: "ann", name: "Ann" };
  for (const order of ["order-1", "order-2"]) {
    await app.do("AddItem", { stream: order, actor: customer }, { item: "tea", price: 3 });
    await app.do("AddItem", { stream: order, actor: customer }, { item: "cup", price: 5, note: "x".repeat(5_000) });
  }
  await app.do("PlaceOrder", { stream: "order-1", actor: customer }, { item: "tea" });
  await app.do("AddItem", { stream: "order-poisoned", actor: customer }, { item: "poison", price: 1 });
  await app.do("PlaceOrder", { stream: "order-poisoned", actor: customer }, { item: "poison" });
  await settle(app);
}
