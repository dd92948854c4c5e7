// Write Parquet reference directories (fsspec's LazyReferenceMapper layout)
// from data/pq/refs.json with hyparquet-writer, an implementation other than
// ours. Run after gen.py, from anywhere:
//
//     (cd tests/refs && npm ci) && node tests/refs/write_parquet.mjs [data/pq directory]
//
// Layout of each variant directory data/pq/<variant>/:
//   .zmetadata                {"metadata": {key: parsed JSON}, "record_size": 16}
//   <array>/refs.<i>.parq     columns path (string), offset, size (int64), raw (bytes)
// A chunk key is record n = the C-order index of its chunk in the chunk
// grid; it is row n % 16 of refs.<n / 16>.parq. Inline data goes in raw;
// [url] is path with offset 0 and size 0; a missing chunk is a row with
// neither path nor raw. Target paths are written relative to the variant
// directory ("../p1.bin").
//
// Variants (hyparquet-writer writes data pages v2 only):
//   hyp_zstd    ZSTD pages (compressor: @bokuweb/zstd-wasm, the zstd C
//               library), every file padded to record_size, path dictionary-
//               encoded where hyparquet chooses it (it does for repeated paths)
//   hyp_snappy  SNAPPY pages, path PLAIN, offset and size DELTA_BINARY_PACKED
//   hyp_old     UNCOMPRESSED, like kerchunk's writer before May 2023: the last
//               file of an array not padded, files without inline data lack
//               the raw column, files with only inline data have only raw,
//               files with no reference at all are not written
//   hyp_pages   ZSTD, row groups of 5 rows and tiny pages (many pages per
//               column chunk), path DELTA_BYTE_ARRAY, raw
//               DELTA_LENGTH_BYTE_ARRAY, offset BYTE_STREAM_SPLIT, size
//               RLE_DICTIONARY, offset and size required (no nulls)
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { parquetReadObjects } from 'hyparquet'
import { init as zstdInit, compress as zstdCompress, decompress as zstdDecompress } from '@bokuweb/zstd-wasm'

const here = path.dirname(fileURLToPath(import.meta.url))
// an optional argument: the data/pq directory to write into (the Go tests
// regenerate into a temporary copy and compare with the committed files)
const root = process.argv[2] ? path.resolve(process.argv[2]) : path.join(here, 'data', 'pq')
const RECORD_SIZE = 16

await zstdInit()
const compressors = { ZSTD: (b) => zstdCompress(b, 10) }

const refs = JSON.parse(fs.readFileSync(path.join(root, 'refs.json'), 'utf8'))

const isMeta = (k) => k.startsWith('.z') || k.includes('/.z')
const metadata = {}
for (const [k, v] of Object.entries(refs)) {
  if (isMeta(k)) metadata[k] = JSON.parse(v)
}

// arrays: field -> { grid, records: Map<n, row> }
const arrays = new Map()
for (const k of Object.keys(metadata)) {
  if (!k.endsWith('.zarray')) continue
  const field = k === '.zarray' ? '' : k.slice(0, -'/.zarray'.length)
  const { shape, chunks } = metadata[k]
  const grid = shape.map((s, i) => Math.ceil(s / chunks[i]))
  arrays.set(field, { grid: grid.length ? grid : [1], rows: new Map() })
}

function inlineBytes(s) {
  if (s.startsWith('base64:')) return new Uint8Array(Buffer.from(s.slice(7), 'base64'))
  return new Uint8Array(Buffer.from(s, 'utf8'))
}

for (const [k, v] of Object.entries(refs)) {
  if (isMeta(k)) continue
  const i = k.lastIndexOf('/')
  const field = k.slice(0, i)
  const a = arrays.get(field)
  if (!a) throw new Error(`key ${k} is not a chunk of an array`)
  const idx = k.slice(i + 1).split('.').map(Number)
  let n = 0
  idx.forEach((c, d) => { n = n * a.grid[d] + c })
  let row
  if (typeof v === 'string') row = { path: null, offset: 0n, size: 0n, raw: inlineBytes(v) }
  else if (v.length === 1) row = { path: '../' + v[0], offset: 0n, size: 0n, raw: null }
  else row = { path: '../' + v[0], offset: BigInt(v[1]), size: BigInt(v[2]), raw: null }
  a.rows.set(n, row)
}

const EMPTY = { path: null, offset: 0n, size: 0n, raw: null }

function records(a) {
  const total = a.grid.reduce((x, y) => x * y, 1)
  const out = []
  for (let f = 0; f * RECORD_SIZE < total; f++) {
    const rows = []
    const last = Math.min(total, (f + 1) * RECORD_SIZE)
    for (let n = f * RECORD_SIZE; n < (f + 1) * RECORD_SIZE; n++) {
      rows.push({ ...(a.rows.get(n) ?? EMPTY), pad: n >= last })
    }
    out.push(rows)
  }
  return out
}

const variants = {
  hyp_zstd: (rows) => ({
    codec: 'ZSTD',
    columnData: [
      { name: 'path', type: 'STRING', data: rows.map((r) => r.path) },
      { name: 'offset', type: 'INT64', nullable: false, data: rows.map((r) => r.offset) },
      { name: 'size', type: 'INT64', nullable: false, data: rows.map((r) => r.size) },
      { name: 'raw', type: 'BYTE_ARRAY', data: rows.map((r) => r.raw) },
    ],
  }),
  hyp_snappy: (rows) => ({
    codec: 'SNAPPY',
    columnData: [
      { name: 'path', type: 'STRING', encoding: 'PLAIN', data: rows.map((r) => r.path) },
      { name: 'offset', type: 'INT64', encoding: 'DELTA_BINARY_PACKED', data: rows.map((r) => r.offset) },
      { name: 'size', type: 'INT64', encoding: 'DELTA_BINARY_PACKED', data: rows.map((r) => r.size) },
      { name: 'raw', type: 'BYTE_ARRAY', data: rows.map((r) => r.raw) },
    ],
  }),
  hyp_old: (rows) => {
    rows = rows.filter((r) => !r.pad)
    const hasRaw = rows.some((r) => r.raw !== null)
    const hasPath = rows.some((r) => r.path !== null)
    if (!hasRaw && !hasPath) return null
    const cols = []
    if (hasPath) {
      cols.push({ name: 'path', type: 'STRING', data: rows.map((r) => r.path) })
      cols.push({ name: 'offset', type: 'INT64', nullable: false, data: rows.map((r) => r.offset) })
      cols.push({ name: 'size', type: 'INT64', nullable: false, data: rows.map((r) => r.size) })
    }
    if (hasRaw) cols.push({ name: 'raw', type: 'BYTE_ARRAY', data: rows.map((r) => r.raw) })
    return { codec: 'UNCOMPRESSED', columnData: cols }
  },
  hyp_pages: (rows) => ({
    codec: 'ZSTD',
    rowGroupSize: 5,
    pageSize: 24,
    columnData: [
      { name: 'path', type: 'STRING', encoding: 'DELTA_BYTE_ARRAY', data: rows.map((r) => r.path) },
      { name: 'offset', type: 'INT64', nullable: false, encoding: 'BYTE_STREAM_SPLIT', data: rows.map((r) => r.offset) },
      { name: 'size', type: 'INT64', nullable: false, encoding: 'RLE_DICTIONARY', data: rows.map((r) => r.size) },
      { name: 'raw', type: 'BYTE_ARRAY', encoding: 'DELTA_LENGTH_BYTE_ARRAY', data: rows.map((r) => r.raw) },
    ],
  }),
}

// every file is read back with hyparquet (the writer's companion reader)
// and must hold exactly the rows written
const checks = []
async function check(buf, opts, what) {
  const got = await parquetReadObjects({ file: buf, utf8: false, compressors: { ZSTD: (b) => zstdDecompress(b) } })
  const n = opts.columnData[0].data.length
  if (got.length !== n) throw new Error(`${what}: ${got.length} rows read back, ${n} written`)
  for (const col of opts.columnData) {
    col.data.forEach((want, r) => {
      let have = got[r][col.name]
      const norm = (v) => v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v === undefined ? null : String(v)
      if (norm(have) !== norm(want)) throw new Error(`${what}: row ${r} ${col.name} reads back ${norm(have)}, written ${norm(want)}`)
    })
  }
}

let files = 0
for (const [name, make] of Object.entries(variants)) {
  const dir = path.join(root, name)
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, '.zmetadata'),
    JSON.stringify({ metadata, record_size: RECORD_SIZE }, null, 1) + '\n')
  for (const [field, a] of arrays) {
    records(a).forEach((rows, i) => {
      const opts = make(rows)
      if (!opts) return
      const buf = parquetWriteBuffer({ compressors, statistics: false, createdBy: 'hyparquet-writer (zarr-wasm tests/refs)', ...opts })
      checks.push(check(buf, opts, `${name}/${field}/refs.${i}.parq`))
      const fdir = path.join(dir, field)
      fs.mkdirSync(fdir, { recursive: true })
      fs.writeFileSync(path.join(fdir, `refs.${i}.parq`), new Uint8Array(buf))
      files++
    })
  }
}
await Promise.all(checks)
console.log(`${Object.keys(variants).length} variants, ${files} Parquet files (each read back by hyparquet)`)
