// Stand-ins for zarrita internals that zarr-wasm has no counterpart for.
// A test that uses one fails with this message, and is listed in
// tests/zarrita-suite/README.md as testing zarrita's internals.
export function notInZarrWasm(name) {
  const fail = () => {
    throw new Error(`zarrita internal ${name}: no counterpart in zarr-wasm (not part of the zarrita API it follows)`);
  };
  return new Proxy(function () {}, { apply: fail, construct: fail, get: (_, k) => (k === Symbol.hasInstance ? () => false : fail()) });
}
