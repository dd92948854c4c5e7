import { notInZarrWasm } from "../_internal.js";
export const BasicIndexer = notInZarrWasm("BasicIndexer");
export const normalizeSelection = notInZarrWasm("normalizeSelection");
export const normalizeIntegerSelection = notInZarrWasm("normalizeIntegerSelection");
