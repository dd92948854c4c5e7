// A web app that imports the package by name; Vite bundles it and emits the
// .wasm as an asset, which init() is pointed at explicitly.
import * as zarr from "zarr-wasm";
import wasmUrl from "zarr-wasm/zarr.wasm?url";
import { direct } from "zarr-wasm/lib/direct.js";
import { install } from "../pages/check.js";

await zarr.init(wasmUrl);
install(zarr, "vite", direct);
