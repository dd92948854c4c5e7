// Stands in, in the benchmark page, for what zarrita's storage package
// imports only for stores the page does not use (Node's fs, path and
// Buffer; the reference and zip stores' libraries).
export const Buffer = undefined;
export const parse = undefined;
export const unzip = undefined;
export default {};
