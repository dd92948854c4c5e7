// The error banner over the stage: an error in plain words (format.js's
// explain), with the engine's message below.
import { $ } from "./dom.js";
import { explain } from "./format.js";
import { setStatus } from "./state.js";

/** The last error shown, for the test and the console. */
export const errorLog = { last: null };

/**
 * Shows e. context ("open", "select", "read", "path", …) picks the
 * wording; title overrides the headline; action ({label, run}) adds a
 * button (e.g. to open the name the engine suggests).
 */
export function showError(e, context = "", title, action) {
  const x = explain(e, context);
  if (!x) return;
  errorLog.last = { code: e?.code, message: String(e?.message ?? e), title: title ?? x.title };
  console.warn("zarr-wasm viewer:", e);
  $("banner-title").textContent = title ?? x.title;
  $("banner-hint").textContent = title ? `${x.title}. ${x.hint}` : x.hint;
  $("banner-detail").textContent = x.detail;
  const btn = $("banner-action");
  btn.hidden = !action;
  btn.onclick = action
    ? () => {
        clearError();
        action.run();
      }
    : null;
  if (action) btn.textContent = action.label;
  $("banner").hidden = false;
  if (context === "open" || context === "select") setStatus("error");
}

export function clearError() {
  $("banner").hidden = true;
}

export function initBanner() {
  $("banner-close").addEventListener("click", clearError);
}
