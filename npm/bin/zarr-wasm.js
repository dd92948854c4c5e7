#!/usr/bin/env node
// zarr-wasm command line: info and cat (see lib/cli.js, or --help).
import { main } from "../lib/cli.js";

process.exitCode = await main(process.argv.slice(2));
