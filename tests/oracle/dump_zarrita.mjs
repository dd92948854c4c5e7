#!/usr/bin/env node
// Write a cases.json (format: tests/python/README.md) for every array in a
// Zarr store, with the values zarrita.js reads: the oracle for stores that
// other implementations wrote.
//
// Usage:
//   node dump_zarrita.mjs <data_root> <store> <out.json>
//   node dump_zarrita.mjs <data_root> <store> <out.json> --zip <file.zip>
//
// <data_root>/<store> is the store directory. With --zip the arrays are read
// from the zip file instead (zarrita's ZipFileStore); the cases still name
// <store>, so a zipped copy of a directory store can be compared with the
// directory. If every entry of the zip sits under one top-level directory
// that is not itself a node, that directory is taken as the store root.
//
// Arrays zarrita cannot open or read are listed with an "error" field (the
// error's class and message) instead of values. Prints "N arrays, M errors".

import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";

import * as zarr from "zarrita";
import FileSystemStore from "@zarrita/storage/fs";
import ZipFileStore from "@zarrita/storage/zip";
import { unzip } from "unzipit";

function usage() {
	process.stderr.write(
		"usage: dump_zarrita.mjs <data_root> <store> <out.json> [--zip <file.zip>]\n",
	);
	process.exit(2);
}

function parseArgs(argv) {
	let pos = [];
	let zip;
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === "--zip") {
			zip = argv[++i];
			if (!zip) usage();
		} else {
			pos.push(argv[i]);
		}
	}
	if (pos.length !== 3) usage();
	return { dataRoot: pos[0], store: pos[1], out: pos[2], zip };
}

// ---------------------------------------------------------------------------
// Finding array nodes. A node is a directory (or key prefix) holding
// zarr.json (v3, node_type "array") or .zarray (v2). Array directories are not
// descended into: they hold chunks, not nodes.

function parseJSON(bytes) {
	// zarr-python writes bare NaN/Infinity tokens in attributes; they are
	// irrelevant here, so turn them into null before parsing.
	let text = Buffer.from(bytes).toString("utf8");
	try {
		return JSON.parse(text);
	} catch {
		return JSON.parse(text.replace(/\b(-?Infinity|NaN)\b/g, "null"));
	}
}

function walkDirectory(root) {
	let found = [];
	let visit = (rel) => {
		let dir = path.join(root, rel);
		let names = fs.readdirSync(dir).sort();
		if (names.includes("zarr.json")) {
			let meta = parseJSON(fs.readFileSync(path.join(dir, "zarr.json")));
			if (meta.node_type === "array") {
				found.push({ path: rel, format: 3, meta });
				return;
			}
		}
		if (names.includes(".zarray")) {
			let meta = parseJSON(fs.readFileSync(path.join(dir, ".zarray")));
			found.push({ path: rel, format: 2, meta });
			return;
		}
		for (let name of names) {
			if (fs.statSync(path.join(dir, name)).isDirectory()) {
				visit(rel === "" ? name : `${rel}/${name}`);
			}
		}
	};
	visit("");
	return found;
}

async function zipStore(file) {
	let blob = new Blob([fs.readFileSync(file)]);
	let { entries } = await unzip(blob);
	let names = Object.keys(entries);
	// Detect a single enclosing directory ("data.zarr/..." zipped from the
	// parent directory).
	let prefix = "";
	let isMeta = (n) => /(^|\/)(zarr\.json|\.zarray|\.zgroup)$/.test(n);
	let rootHasMeta = names.some((n) => !n.includes("/") && isMeta(n));
	let tops = new Set(names.map((n) => n.split("/")[0]));
	if (!rootHasMeta && tops.size === 1) {
		prefix = `${[...tops][0]}/`;
	}
	let transformEntries = (ents) => {
		if (!prefix) return ents;
		let out = {};
		for (let [k, v] of Object.entries(ents)) {
			if (k.startsWith(prefix)) out[k.slice(prefix.length)] = v;
		}
		return out;
	};
	let store = ZipFileStore.fromBlob(blob, { transformEntries });
	let found = [];
	let arrayDirs = [];
	let metaKeys = names
		.filter((n) => n.startsWith(prefix))
		.map((n) => n.slice(prefix.length))
		.filter((n) => /(^|\/)(zarr\.json|\.zarray)$/.test(n))
		.sort();
	for (let key of metaKeys) {
		let slash = key.lastIndexOf("/");
		let dir = slash < 0 ? "" : key.slice(0, slash);
		let base = key.slice(slash + 1);
		let meta = parseJSON(await entries[prefix + key].arrayBuffer());
		if (base === "zarr.json" && meta.node_type !== "array") continue;
		found.push({ path: dir, format: base === "zarr.json" ? 3 : 2, meta });
		arrayDirs.push(dir);
	}
	// Drop nodes inside array directories (there should be none).
	found = found.filter(
		(n) => !arrayDirs.some((d) => d !== n.path && n.path.startsWith(`${d}/`)),
	);
	return { store, found, prefix };
}

// ---------------------------------------------------------------------------
// Turning zarrita's result into the cases.json encoding.

function dtypeOf(node) {
	return node.format === 3 ? node.meta.data_type : node.meta.dtype;
}

// Element offsets (in elements) of a strided result, in C order.
function cOrderOffsets(shape, stride, offset = 0) {
	let n = shape.reduce((a, b) => a * b, 1);
	let out = new Array(n);
	let idx = new Array(shape.length).fill(0);
	for (let k = 0; k < n; k++) {
		let o = offset;
		for (let d = 0; d < shape.length; d++) o += idx[d] * stride[d];
		out[k] = o;
		for (let d = shape.length - 1; d >= 0; d--) {
			if (++idx[d] < shape[d]) break;
			idx[d] = 0;
		}
	}
	return out;
}

function latin1NoTrailingNul(bytes) {
	let end = bytes.length;
	while (end > 0 && bytes[end - 1] === 0) end--;
	let s = "";
	for (let i = 0; i < end; i++) s += String.fromCharCode(bytes[i]);
	return s;
}

function encodeObject(v) {
	if (v === null || v === undefined) return null;
	if (v instanceof Uint8Array) return { base64: Buffer.from(v).toString("base64") };
	if (typeof v === "bigint") return Number(v);
	if (Array.isArray(v)) return v.map(encodeObject);
	return v;
}

// The elements at offsets (es bytes each) of raw, concatenated, as base64.
function gather(raw, offsets, es) {
	let out = Buffer.alloc(offsets.length * es);
	offsets.forEach((o, k) => {
		out.set(raw.subarray(o * es, (o + 1) * es), k * es);
	});
	return out.toString("base64");
}

function encodeResult(res, dtype) {
	let { data, shape, stride } = res;
	let offsets = cOrderOffsets(shape, stride);
	if (data instanceof zarr.BoolArray) {
		let out = Buffer.alloc(offsets.length);
		offsets.forEach((o, k) => {
			out[k] = data.get(o) ? 1 : 0;
		});
		return { bytes: out.toString("base64") };
	}
	if (data instanceof zarr.ByteStringArray) {
		let raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
		let c = data.chars;
		return {
			bytes: gather(raw, offsets, c),
			strings: offsets.map((o) => latin1NoTrailingNul(raw.subarray(o * c, (o + 1) * c))),
		};
	}
	if (data instanceof zarr.UnicodeStringArray) {
		// UTF-32 code units in host (little-endian) order.
		let raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
		return {
			bytes: gather(raw, offsets, data.BYTES_PER_ELEMENT),
			strings: offsets.map((o) => data.get(o)),
		};
	}
	if (ArrayBuffer.isView(data)) {
		// Numeric TypedArrays, BigInt64Array/BigUint64Array included. The host
		// is little-endian (checked below), so buffer bytes are LE.
		let raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
		return { bytes: gather(raw, offsets, data.BYTES_PER_ELEMENT) };
	}
	if (Array.isArray(data)) {
		// v3 "string" gives strings; v2 "|O" (and anything else) objects.
		let vals = offsets.map((o) => data[o]);
		if (dtype === "string") return { strings: vals };
		return { objects: vals.map(encodeObject) };
	}
	throw new Error(`oracle: cannot encode result of type ${data?.constructor?.name}`);
}

function errorText(e) {
	let name = e?.constructor?.name ?? "Error";
	let msg = e?.message ?? String(e);
	if (e?.cause?.message) msg += ` (cause: ${e.cause.message})`;
	return `${name}: ${msg}`;
}

async function readCase(store, storeName, node) {
	let c = {
		name: `${storeName}/${node.path}`,
		store: storeName,
		path: node.path,
		zarr_format: node.format,
		selection: "",
	};
	try {
		let loc = zarr.root(store).resolve(node.path === "" ? "/" : `/${node.path}`);
		let open = node.format === 3 ? zarr.open.v3 : zarr.open.v2;
		let arr = await open(loc, { kind: "array" });
		let res = await zarr.get(arr);
		if (res === null || typeof res !== "object" || !("data" in res)) {
			// zarr.get returns a bare scalar for a 0-d array: wrap it in a
			// one-element array of the array's type so it encodes like any result.
			let data = [res];
			if (arr.dtype === "bool") {
				data = new zarr.BoolArray([res]);
			} else if (typeof res === "number" || typeof res === "bigint") {
				data = zarrCtor(arr.dtype).from([res]);
			}
			res = { data, shape: [], stride: [] };
		}
		c.shape = [...res.shape];
		c.dtype = dtypeOf(node);
		Object.assign(c, encodeResult(res, arr.dtype));
	} catch (e) {
		c.shape = node.meta.shape ?? null;
		c.dtype = dtypeOf(node);
		c.error = errorText(e);
	}
	return c;
}

function zarrCtor(dtype) {
	return {
		int8: Int8Array,
		int16: Int16Array,
		int32: Int32Array,
		int64: BigInt64Array,
		uint8: Uint8Array,
		uint16: Uint16Array,
		uint32: Uint32Array,
		uint64: BigUint64Array,
		float32: Float32Array,
		float64: Float64Array,
		float16: globalThis.Float16Array,
	}[dtype];
}

async function main() {
	if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
		throw new Error("oracle: this host is big-endian; bytes would be wrong");
	}
	let { dataRoot, store: storeName, out, zip } = parseArgs(process.argv.slice(2));
	let store;
	let found;
	if (zip) {
		({ store, found } = await zipStore(zip));
	} else {
		let dir = path.join(dataRoot, storeName);
		store = new FileSystemStore(dir);
		found = walkDirectory(dir);
	}
	let cases = [];
	for (let node of found) {
		cases.push(await readCase(store, storeName, node));
	}
	fs.writeFileSync(out, `[\n${cases.map((c) => JSON.stringify(c)).join(",\n")}\n]\n`);
	let errors = cases.filter((c) => c.error !== undefined);
	console.log(`${cases.length} arrays, ${errors.length} errors`);
	for (let c of errors) console.log(`  error ${c.name}: ${c.error}`);
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
