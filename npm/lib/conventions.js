// Zarr conventions (github.com/zarr-conventions/zarr-conventions-spec):
// node.conventions lists the entries of the node's "zarr_conventions"
// attribute, by the rule the engine's zarr.ParseConventions follows (both
// are checked against tests/registry/examples/conventions.json): objects
// with at least one of uuid, schema_url and spec_url, every member the
// specification defines a string; other entries are left out, never an
// error. Conventions never change how data is stored.
import { ZarrArray, ZarrGroup } from "./core.js";

const members = ["uuid", "schema_url", "spec_url", "name", "description"];

/** The conventions attrs declares: [{id, uuid?, schema_url?, spec_url?, name?, description?}]. */
export function conventionsOf(attrs) {
  const list = attrs?.zarr_conventions;
  if (!Array.isArray(list)) return [];
  const out = [];
  for (const e of list) {
    if (e === null || typeof e !== "object" || Array.isArray(e)) continue;
    const c = {};
    let valid = true;
    for (const m of members) {
      if (!(m in e)) continue;
      if (typeof e[m] !== "string") valid = false;
      c[m] = e[m];
    }
    const id = c.uuid || c.schema_url || c.spec_url;
    if (valid && id) out.push({ id, ...c });
  }
  return out;
}

for (const cls of [ZarrArray, ZarrGroup]) {
  Object.defineProperty(cls.prototype, "conventions", {
    get() {
      return conventionsOf(this.attrs);
    },
    configurable: true,
  });
}
