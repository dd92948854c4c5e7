// A web app that imports the package by name; Vite bundles it and emits the
// .wasm as an asset, which init() is pointed at explicitly.
import * as zarr from "zarr-wasm";
import wasmUrl from "zarr-wasm/zarr.wasm?url";
import { executor, readStats } from "zarr-wasm/lib/read.js";
import { install } from "../pages/check.js";

await zarr.init(wasmUrl);
install(zarr, "vite", { executor, readStats });
