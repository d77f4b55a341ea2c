/**
 * OpenTelemetry traces and metrics for Act: one call, {@link instrument},
 * and every action, load, store call, drain and reaction becomes a span —
 * reactions linked to the actions that caused them, across processes — and
 * the `act.*` metrics flow to your meter provider.
 *
 * @packageDocumentation
 */
export { type InstrumentOptions, type Instrumented, instrument } from "./instrument.js";
