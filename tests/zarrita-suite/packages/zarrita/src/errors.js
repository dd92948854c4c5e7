// zarrita's error classes are internal to zarrita (its package root exports
// only isZarritaError). zarr-wasm throws ZarrError with a code; these
// stand-ins let `instanceof NotFoundError` / `toThrow(NotFoundError)` ask
// zarr-wasm's isZarritaError with the same tag. Constructing one is a
// zarrita internal with no counterpart.
import { isZarritaError } from "zarr-wasm";

function standIn(tag) {
  return class {
    constructor() {
      throw new Error(`zarrita internal ${tag} (constructor): no counterpart in zarr-wasm (not part of the zarrita API it follows)`);
    }
    static [Symbol.hasInstance](err) {
      return isZarritaError(err, tag);
    }
  };
}

export const NotFoundError = standIn("NotFoundError");
export const InvalidMetadataError = standIn("InvalidMetadataError");
export const InvalidSelectionError = standIn("InvalidSelectionError");
export const UnknownCodecError = standIn("UnknownCodecError");
export const UnsupportedError = standIn("UnsupportedError");
export const CodecPipelineError = standIn("CodecPipelineError");
