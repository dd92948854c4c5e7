import { notInZarrWasm } from "./_internal.js";
export const BoolArray = notInZarrWasm("BoolArray");
export const ByteStringArray = notInZarrWasm("ByteStringArray");
export const UnicodeStringArray = notInZarrWasm("UnicodeStringArray");
