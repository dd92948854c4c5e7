// Small DOM helpers shared by the viewer's modules.

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/**
 * Makes an element: props "class", "text", "on<event>" (a listener) or
 * attributes (true: present, false/null/undefined: absent); kids are
 * appended (arrays flattened, null skipped).
 */
export function el(tag, props = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k);
  return e;
}
