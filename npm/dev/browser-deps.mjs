// Development-only: the browser test's tools (playwright-core drives
// Debian's chromium; Vite bundles the package). Not published.
export { chromium } from "playwright-core";
export * as vite from "vite";
