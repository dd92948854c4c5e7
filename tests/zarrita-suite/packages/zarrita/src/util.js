// jsonDecodeObject (bytes → a JSON value) is how the tests read the
// metadata a call wrote: zarrita's own, from its npm package (a test
// helper here, not API).
export { jsonDecodeObject } from "../../../node_modules/zarrita/dist/src/util.js";
