#!/usr/bin/env node
// check_writer.mjs: proves that Parquet files written by srs's own writer
// (include/srs/data/parquet_writer.hpp) are read correctly by three independent
// readers.
//
// Usage:
//   cd tests/tools/parquet_fixtures && npm ci && node check_writer.mjs [--keep]
//     --keep   keep the temporary folder (the program and the files) and print its path
//   environment: CXX (default g++), CXXFLAGS (added to -std=c++20 -O1)
//
// What it does:
//  1. compiles write_with_srs.cpp (next to this script) with the repository's
//     include/ folder and -lsnappy -lzstd -lz into a temporary folder;
//  2. runs it, which writes a set of Parquet files, each with a CSV twin holding
//     the exact values (a header with the column names, a null as an empty
//     field), and layout.json with the options each file was written with;
//  3. reads every file with
//       hyparquet     pure JavaScript reader (with hyparquet-compressors)
//       DuckDB        DuckDB's native reader (@duckdb/node-api)
//       parquet-wasm  arrow-rs's parquet crate compiled to WebAssembly (read into apache-arrow JS)
//     and compares the decoded values (nulls included), the column names and the
//     column types with the CSV twin and layout.json;
//  4. checks each file's layout against the options it was written with, reading
//     the footer with hyparquet's metadata reader and walking every page header
//     (hyparquet's page-header parser): codec, page types, dictionary page or
//     PLAIN per column chunk (the fallback past max_dictionary_values included),
//     row groups, pages per chunk and their value counts, v2 num_nulls/num_rows/
//     is_compressed, and the chunk sizes in the column metadata against the pages;
//     and decodes every page itself, strictly (exact page and run lengths,
//     definition levels equal to the nulls, dictionary indices inside the
//     dictionary and wide enough, values equal to the CSV twin), printing the
//     index bit widths and RLE/bit-packed runs met;
//  5. prints one line per file and reader ("ok" or the first difference), a
//     summary, and exits 1 on any failure (2 if the program does not build or run).
//
// The reading helpers follow make_fixtures.mjs (same readers, same way of
// calling them); that script and its outputs are not touched.

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'

import * as arrow from 'apache-arrow'
import * as pw from 'parquet-wasm/node'
import { DuckDBInstance } from '@duckdb/node-api'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'
import { parquetHeader } from 'hyparquet/src/column.js' // hyparquet's page-header parser (an exported internal module)
import { compressors as hyCompressors } from 'hyparquet-compressors'

const here = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(here, '../../..')
const includeDir = path.join(repoRoot, 'include')
const source = path.join(here, 'write_with_srs.cpp')
const READERS = ['layout', 'hyparquet', 'DuckDB', 'parquet-wasm']

// ---------------------------------------------------------------------------
// Building and running the writer

function build(work) {
  const exe = path.join(work, 'write_with_srs')
  const cxx = process.env.CXX || 'g++'
  const extra = (process.env.CXXFLAGS || '').split(/\s+/).filter(Boolean)
  const args = ['-std=c++20', '-O1', ...extra, '-I', includeDir, source, '-o', exe, '-lsnappy', '-lzstd', '-lz']
  console.log(`build: ${cxx} ${args.join(' ')}`)
  execFileSync(cxx, args, { stdio: 'inherit' })
  return exe
}

function runWriter(exe, outDir) {
  const out = execFileSync(exe, [outDir], { encoding: 'utf8' })
  const lines = out.trim().split('\n')
  console.log(`run:   ${exe} ${outDir}\n       ${lines[lines.length - 1]}`)
}

// ---------------------------------------------------------------------------
// The expected values

/** The CSV twin: column names and rows of strings ('' = null). */
function readCsv(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  const names = lines[0].split(',')
  const rows = lines.slice(1).map(l => {
    const f = l.split(',')
    if (f.length !== names.length) throw new Error(`${file}: a line with ${f.length} fields for ${names.length} columns`)
    return f
  })
  return { names, rows }
}

const show = v => (v === null || v === undefined ? '' : typeof v === 'bigint' ? v.toString() : String(v))
const num = v => (typeof v === 'bigint' ? Number(v) : v)
const fmtValue = s => (s === '' ? 'null' : s)

/** The first difference between decoded rows (arrays in column order) and the CSV rows, or null. */
function firstDifference(got, expected, names) {
  if (got.length !== expected.rows.length) return `${got.length} rows, expected ${expected.rows.length}`
  for (let i = 0; i < got.length; i++) {
    for (let k = 0; k < names.length; k++) {
      const a = show(got[i][k])
      const b = expected.rows[i][k]
      if (a !== b) return `row ${i + 1} column ${names[k]}: ${fmtValue(a)}, expected ${fmtValue(b)}`
    }
  }
  return null
}

function sameList(got, want, what) {
  if (got.join(',') !== want.join(',')) throw new Error(`${what} [${got.join(', ')}], expected [${want.join(', ')}]`)
}

// ---------------------------------------------------------------------------
// The readers

async function readWithHyparquet(bytes, expected, entry) {
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  const md = parquetMetadata(buf)
  const leaves = md.schema.slice(1)
  sameList(leaves.map(e => e.name), expected.names, 'columns')
  sameList(leaves.map(e => e.type), entry.types, 'physical types')
  const rows = await parquetReadObjects({ file: buf, compressors: hyCompressors })
  return firstDifference(rows.map(r => expected.names.map(n => r[n])), expected, expected.names)
}

let duckdb = null
async function duckConnection() {
  if (!duckdb) {
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' })
    duckdb = await instance.connect()
  }
  return duckdb
}

const sqlString = s => `'${s.replaceAll("'", "''")}'`

async function readWithDuckDB(file, expected, entry) {
  const con = await duckConnection()
  const described = (await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(file)})`)).getRowsJS()
  sameList(described.map(r => r[0]), expected.names, 'columns')
  const sqlTypes = entry.types.map(t => ({ INT64: 'BIGINT', INT32: 'INTEGER' })[t])
  sameList(described.map(r => r[1]), sqlTypes, 'types')
  const reader = await con.runAndReadAll(`SELECT * FROM read_parquet(${sqlString(file)})`)
  return firstDifference(reader.getRowsJS(), expected, expected.names)
}

function readWithParquetWasm(bytes, expected, entry) {
  const table = arrow.tableFromIPC(pw.readParquet(bytes).intoIPCStream())
  const fields = table.schema.fields
  sameList(fields.map(f => f.name), expected.names, 'columns')
  sameList(fields.map(f => String(f.type)), entry.types.map(t => ({ INT64: 'Int64', INT32: 'Int32' })[t]), 'types')
  const nullable = entry.repetition === 'OPTIONAL'
  sameList(fields.map(f => f.nullable), fields.map(() => nullable), 'nullable')
  const cols = fields.map(f => table.getChild(f.name))
  const rows = []
  for (let i = 0; i < table.numRows; i++) rows.push(cols.map(c => c.get(i)))
  return firstDifference(rows, expected, expected.names)
}

// ---------------------------------------------------------------------------
// The layout, and a strict decoding of every page

function decompress(codec, input, length) {
  if (codec === 'UNCOMPRESSED') return input
  const out = codec === 'GZIP' ? new Uint8Array(zlib.gunzipSync(input)) : hyCompressors[codec](input, length)
  if (out.length !== length) throw new Error(`a ${codec} page decompresses to ${out.length} bytes, its header says ${length}`)
  return out
}

/**
 * Decodes an RLE/bit-packed hybrid stream of `bw`-bit values that must fill
 * `bytes` exactly: every value (the padding of the last bit-packed group
 * included) and the number of RLE runs, of RLE runs with values of 2 or more
 * bytes, and of bit-packed runs.
 */
function decodeHybrid(bytes, bw) {
  const values = []
  const stats = { rle: 0, wideRle: 0, packed: 0 }
  const valueBytes = Math.ceil(bw / 8)
  let at = 0
  while (at < bytes.length) {
    let h = 0
    let mul = 1
    let b
    do {
      if (at >= bytes.length) throw new Error('a run header runs past the end')
      b = bytes[at++]
      h += (b & 0x7f) * mul
      mul *= 128
    } while (b & 0x80)
    if (h % 2 === 0) {
      const n = h / 2
      if (n === 0) throw new Error('an RLE run of length 0')
      if (at + valueBytes > bytes.length) throw new Error('an RLE value runs past the end')
      let v = 0
      for (let i = 0; i < valueBytes; i++) v += bytes[at + i] * 2 ** (8 * i)
      at += valueBytes
      if (v >= 2 ** bw) throw new Error(`an RLE value ${v} wider than ${bw} bits`)
      for (let i = 0; i < n; i++) values.push(v)
      stats.rle++
      if (valueBytes > 1) stats.wideRle++
    } else {
      const groups = (h - 1) / 2
      if (groups === 0) throw new Error('a bit-packed run of 0 groups')
      if (at + groups * bw > bytes.length) throw new Error('a bit-packed run runs past the end')
      for (let i = 0; i < groups * 8; i++) {
        let v = 0
        for (let k = 0; k < bw; k++) {
          const bit = i * bw + k
          if ((bytes[at + (bit >> 3)] >> (bit & 7)) & 1) v += 2 ** k
        }
        values.push(v)
      }
      at += groups * bw
      stats.packed++
    }
  }
  return { values, ...stats }
}

/** `n` PLAIN integers of `width` bytes from `bytes`, as strings. */
function plainValues(bytes, n, width) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out = []
  for (let i = 0; i < n; i++) out.push(String(width === 4 ? view.getInt32(4 * i, true) : view.getBigInt64(8 * i, true)))
  return out
}

/** Checks that `decoded` holds `want` values (then at most 7 of padding) and returns the first `want`. */
function takeValues(decoded, want, what) {
  if (decoded.length < want || decoded.length - want >= 8) throw new Error(`${what}: ${decoded.length} values for ${want}`)
  return decoded.slice(0, want)
}

/**
 * Layout problems of one file (empty: the file is laid out as asked and its
 * pages decode to the CSV twin's values under a strict decoder: exact page and
 * run lengths, definition levels matching the nulls, indices inside the dictionary).
 */
function checkLayout(bytes, expected, entry, notes) {
  const problems = []
  const say = m => { if (problems.length < 1000) problems.push(m) }
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  const view = new DataView(buf)
  const md = parquetMetadata(buf)
  const rows = expected.rows.length
  const optional = entry.repetition === 'OPTIONAL'
  if (num(md.num_rows) !== rows) say(`num_rows ${md.num_rows}, expected ${rows}`)
  const leaves = md.schema.slice(1)
  if (md.schema[0].num_children !== leaves.length) say(`the root has num_children ${md.schema[0].num_children}`)
  for (const e of leaves) {
    if (e.repetition_type !== entry.repetition) say(`${e.name} is ${e.repetition_type}, expected ${entry.repetition}`)
    if (e.num_children) say(`${e.name} has children`)
  }
  const groupRows = []
  for (let f = 0; f < rows; f += entry.row_group_rows) groupRows.push(Math.min(entry.row_group_rows, rows - f))
  const rgCounts = md.row_groups.map(g => num(g.num_rows))
  // an empty table: our writer writes one empty row group (zero row groups would do as well)
  const rgOk = rows === 0 ? rgCounts.every(n => n === 0) : rgCounts.join() === groupRows.join()
  if (!rgOk) say(`row groups of [${rgCounts}] rows, expected [${groupRows}]`)
  const widths = new Set()
  const runs = { rle: 0, wideRle: 0, packed: 0 }
  let pagesSeen = 0
  let first = 0
  for (const [g, rg] of md.row_groups.entries()) {
    const n = num(rg.num_rows)
    if (rg.columns.length !== leaves.length) say(`row group ${g} has ${rg.columns.length} columns`)
    let groupUncompressed = 0
    for (const [k, chunk] of rg.columns.entries()) {
      const m = chunk.meta_data
      const where = `rg ${g} ${expected.names[k]}`
      const width = entry.types[k] === 'INT32' ? 4 : 8
      groupUncompressed += num(m.total_uncompressed_size)
      try {
        if (m.path_in_schema.join('.') !== expected.names[k]) say(`${where}: path ${m.path_in_schema}`)
        if (m.type !== entry.types[k]) say(`${where}: type ${m.type}`)
        if (m.codec !== entry.codec) say(`${where}: codec ${m.codec}, expected ${entry.codec}`)
        if (num(m.num_values) !== n) say(`${where}: num_values ${m.num_values}, expected ${n}`)
        const values = expected.rows.slice(first, first + n).map(r => r[k])
        const distinct = new Set(values.filter(v => v !== ''))
        const wantDict = entry.dictionary && distinct.size <= entry.max_dictionary_values
        const dictOff = m.dictionary_page_offset !== undefined ? num(m.dictionary_page_offset) : undefined
        const dataOff = num(m.data_page_offset)
        const start = dictOff !== undefined ? dictOff : dataOff
        const end = start + num(m.total_compressed_size)
        let off = start
        let uncompressedWithHeaders = 0
        let row = 0
        let dataPages = 0
        let dictionary = null
        while (off < end) {
          const reader = { view, offset: off }
          const h = parquetHeader(reader)
          const headerSize = reader.offset - off
          if (reader.offset + h.compressed_page_size > end) throw new Error(`the page at ${off} runs past the chunk's end`)
          const body = new Uint8Array(buf, reader.offset, h.compressed_page_size)
          uncompressedWithHeaders += headerSize + h.uncompressed_page_size
          pagesSeen++
          const here = `${where} page at ${off}`
          if (h.type === 'DICTIONARY_PAGE') {
            const d = h.dictionary_page_header
            if (off !== dictOff || dataPages > 0 || dictionary) say(`${here}: a dictionary page not at dictionary_page_offset or not first`)
            if (!wantDict) say(`${here}: a dictionary page (${distinct.size} distinct values, dictionary ${entry.dictionary})`)
            if (d.encoding !== 'PLAIN' && d.encoding !== 'PLAIN_DICTIONARY') say(`${here}: dictionary encoded ${d.encoding}`)
            const page = decompress(entry.codec, body, h.uncompressed_page_size)
            if (page.length !== d.num_values * width) say(`${here}: a dictionary of ${page.length} bytes for ${d.num_values} values`)
            dictionary = plainValues(page, d.num_values, width)
            if (new Set(dictionary).size !== dictionary.length) say(`${here}: a value twice in the dictionary`)
            if (d.num_values !== distinct.size) say(`${here}: a dictionary of ${d.num_values} values, ${distinct.size} distinct in the chunk`)
          } else if (h.type === 'DATA_PAGE' || h.type === 'DATA_PAGE_V2') {
            if (dataPages === 0 && off !== dataOff) say(`${here}: the first data page is not at data_page_offset ${dataOff}`)
            dataPages++
            if (h.type !== entry.page_type) say(`${here}: ${h.type}, expected ${entry.page_type}`)
            const want = Math.min(entry.page_rows, n - row)
            const pageValues = values.slice(row, row + want)
            const present = pageValues.filter(v => v !== '')
            const nulls = want - present.length
            const v2 = h.data_page_header_v2
            const dp = h.data_page_header ?? v2
            if (dp.num_values !== want) say(`${here}: num_values ${dp.num_values}, expected ${want}`)
            const wantEncoding = wantDict ? 'RLE_DICTIONARY' : 'PLAIN'
            if (dp.encoding !== wantEncoding) say(`${here}: encoding ${dp.encoding}, expected ${wantEncoding}`)
            let levelBytes = null
            let valueBytes
            if (v2) {
              if (v2.num_nulls !== nulls) say(`${here}: num_nulls ${v2.num_nulls}, expected ${nulls}`)
              if (v2.num_rows !== want) say(`${here}: num_rows ${v2.num_rows}, expected ${want}`)
              if (v2.repetition_levels_byte_length !== 0) say(`${here}: repetition levels`)
              if (v2.is_compressed !== (entry.codec !== 'UNCOMPRESSED')) say(`${here}: is_compressed ${v2.is_compressed}`)
              const levels = v2.definition_levels_byte_length + v2.repetition_levels_byte_length
              if (optional) levelBytes = body.subarray(0, v2.definition_levels_byte_length)
              else if (levels !== 0) say(`${here}: definition levels in a REQUIRED column`)
              valueBytes = v2.is_compressed
                ? decompress(entry.codec, body.subarray(levels), h.uncompressed_page_size - levels)
                : body.subarray(levels)
              if (!v2.is_compressed && body.length !== h.uncompressed_page_size) say(`${here}: an uncompressed page whose sizes differ`)
            } else {
              if (h.data_page_header.definition_level_encoding !== 'RLE') say(`${here}: definition levels ${h.data_page_header.definition_level_encoding}`)
              const page = decompress(entry.codec, body, h.uncompressed_page_size)
              let at = 0
              if (optional) {
                const len = new DataView(page.buffer, page.byteOffset, page.byteLength).getUint32(0, true)
                if (4 + len > page.length) throw new Error(`${here}: definition levels of ${len} bytes run past the page`)
                levelBytes = page.subarray(4, 4 + len)
                at = 4 + len
              }
              valueBytes = page.subarray(at)
            }
            if (levelBytes) {
              const levels = takeValues(decodeHybrid(levelBytes, 1).values, want, `${here} definition levels`)
              const wantLevels = pageValues.map(v => (v === '' ? 0 : 1))
              if (levels.join('') !== wantLevels.join('')) say(`${here}: definition levels differ from the nulls`)
            }
            let decoded
            if (wantDict) {
              if (!dictionary) throw new Error(`${here}: no dictionary page before it`)
              if (valueBytes.length < 1) throw new Error(`${here}: no bit width`)
              const bw = valueBytes[0]
              widths.add(bw)
              if (bw > 32 || 2 ** bw < dictionary.length) say(`${here}: index bit width ${bw} for ${dictionary.length} dictionary values`)
              const hybrid = decodeHybrid(valueBytes.subarray(1), bw)
              runs.rle += hybrid.rle
              runs.wideRle += hybrid.wideRle
              runs.packed += hybrid.packed
              const indices = takeValues(hybrid.values, present.length, `${here} indices`)
              if (indices.some(i => i >= dictionary.length)) say(`${here}: an index past the dictionary's ${dictionary.length} values`)
              decoded = indices.map(i => dictionary[i])
            } else {
              if (valueBytes.length !== present.length * width) say(`${here}: ${valueBytes.length} bytes of PLAIN values for ${present.length} values`)
              decoded = plainValues(valueBytes, Math.min(present.length, Math.floor(valueBytes.length / width)), width)
            }
            const i = decoded.findIndex((v, j) => v !== present[j])
            if (i >= 0 || decoded.length !== present.length) say(`${here}: decoded value ${i} is ${decoded[i]}, expected ${present[i]}`)
            row += want
          } else {
            say(`${here}: a ${h.type} page`)
          }
          off = reader.offset + h.compressed_page_size
        }
        if (off !== end) say(`${where}: the pages end at ${off}, the chunk (total_compressed_size) at ${end}`)
        if (row !== n) say(`${where}: the pages hold ${row} values, expected ${n}`)
        if (dataPages !== Math.max(1, Math.ceil(n / entry.page_rows))) say(`${where}: ${dataPages} data pages`)
        if (wantDict !== (dictionary !== null)) say(`${where}: ${dictionary ? 'a' : 'no'} dictionary page, ${distinct.size} distinct values`)
        if (wantDict !== (dictOff !== undefined)) say(`${where}: dictionary_page_offset ${dictOff}`)
        const encodings = m.encodings ?? []
        if (!encodings.includes(wantDict ? 'RLE_DICTIONARY' : 'PLAIN')) say(`${where}: encodings [${encodings}]`)
        // parquet.thrift, ColumnMetaData.total_uncompressed_size: "total byte size of all
        // uncompressed pages in this column chunk (including the headers)"
        if (num(m.total_uncompressed_size) !== uncompressedWithHeaders)
          say(`${where}: total_uncompressed_size ${m.total_uncompressed_size}, but its pages hold ${uncompressedWithHeaders} bytes uncompressed with their headers`)
      } catch (err) {
        say(`${where}: ${err.message}`)
      }
    }
    // RowGroup.total_byte_size: "total byte size of all the uncompressed column data in this row group"
    // (arrow-rs, DuckDB and hyparquet-writer: the sum of the chunks' total_uncompressed_size)
    if (num(rg.total_byte_size) !== groupUncompressed)
      say(`rg ${g}: total_byte_size ${rg.total_byte_size}, the chunks' total_uncompressed_size add up to ${groupUncompressed}`)
    first += n
  }
  notes.push(`${md.row_groups.length} rg, ${pagesSeen} pages`)
  if (widths.size) {
    notes.push(`index bit widths ${[...widths].sort((a, b) => a - b).join(',')}`)
    notes.push(`index runs: ${runs.rle} RLE (${runs.wideRle} with 2-byte values), ${runs.packed} bit-packed`)
  }
  return problems
}

// ---------------------------------------------------------------------------

async function checkAll(outDir) {
  const layout = JSON.parse(fs.readFileSync(path.join(outDir, 'layout.json'), 'utf8'))
  const failures = Object.fromEntries(READERS.map(r => [r, 0]))
  const width = Math.max(...layout.map(e => e.file.length))
  const line = (status, file, reader, detail) =>
    console.log(`${status.padEnd(5)} ${file.padEnd(width)}  ${reader.padEnd(12)}${detail ? `  ${detail}` : ''}`)
  for (const entry of layout) {
    const file = path.join(outDir, entry.file)
    const bytes = new Uint8Array(fs.readFileSync(file))
    const expected = readCsv(path.join(outDir, entry.csv))
    const attempts = {
      layout: () => {
        const notes = []
        const problems = checkLayout(bytes, expected, entry, notes)
        if (!problems.length) return { ok: notes.join(', ') }
        const more = problems.length > 2 ? ` (and ${problems.length - 2} more)` : ''
        return problems.slice(0, 2).join('; ') + more
      },
      hyparquet: () => readWithHyparquet(bytes, expected, entry),
      DuckDB: () => readWithDuckDB(file, expected, entry),
      'parquet-wasm': () => readWithParquetWasm(bytes, expected, entry),
    }
    for (const reader of READERS) {
      let result
      try {
        result = await attempts[reader]()
      } catch (err) {
        result = `error: ${String(err?.message ?? err).split('\n')[0]}`
      }
      if (result === null || typeof result === 'object') {
        line('ok', entry.file, reader, result?.ok ?? `${expected.rows.length} rows`)
      } else {
        failures[reader]++
        line('FAIL', entry.file, reader, result)
      }
    }
  }
  const total = Object.values(failures).reduce((a, b) => a + b, 0)
  console.log(`\n${layout.length} files written by srs's Parquet writer`)
  for (const r of READERS) console.log(`  ${r.padEnd(12)} ${layout.length - failures[r]} ok, ${failures[r]} failed`)
  return total === 0
}

async function main() {
  const args = process.argv.slice(2)
  for (const a of args) {
    if (a !== '--keep') {
      console.error(`usage: node check_writer.mjs [--keep]  (unknown argument ${a})`)
      return 2
    }
  }
  const keep = args.includes('--keep')
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'srs-parquet-writer-'))
  try {
    const outDir = path.join(work, 'files')
    let exe
    try {
      exe = build(work)
      runWriter(exe, outDir)
    } catch (err) {
      console.error(`check_writer: building or running write_with_srs failed: ${err.message}`)
      return 2
    }
    const ok = await checkAll(outDir)
    console.log(ok ? 'all files read correctly by every reader' : 'FAILED')
    return ok ? 0 : 1
  } finally {
    if (keep) console.log(`kept ${work}`)
    else fs.rmSync(work, { recursive: true, force: true })
  }
}

main().then(code => process.exit(code), err => {
  console.error(`check_writer: ${err.stack ?? err}`)
  process.exit(1)
})
