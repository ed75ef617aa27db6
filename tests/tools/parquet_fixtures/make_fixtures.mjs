#!/usr/bin/env node
// make_fixtures.mjs: writes the Parquet test fixtures of tests/data/fixtures/parquet/.
//
// What it makes: small Parquet files holding revlogs / cards / decks tables (the
// layout of the anki-revlogs-10k dataset), each written by one of three
// independent writers from npm:
//   parquet-wasm/      arrow-rs's parquet crate compiled to WebAssembly (tables built with apache-arrow JS, passed as Arrow IPC)
//   duckdb/            DuckDB's own native Parquet writer (@duckdb/node-api, COPY ... TO ... (FORMAT parquet))
//   hyparquet-writer/  hyparquet-writer, a pure JavaScript writer
// Beside every <name>.parquet lies <name>.csv with the exact values a reader must
// decode (a header line with the column names, one line per row, a null is an
// empty field), and manifest.json lists every fixture with its writer, table
// kind, expected outcome and the properties read back from the file with
// hyparquet's metadata reader and its page-header parser (codec, encodings,
// page types, repetition, physical/converted/logical types, row groups, nulls).
//
// Every fixture is checked after it is written: its decoded values, read by
// three readers (hyparquet, DuckDB, parquet-wasm), must equal the CSV twin, and
// its read-back properties must be the ones it was made for (e.g. the "zstd" file
// really has codec ZSTD in every column chunk); the script fails otherwise. It
// also fails when a property of the coverage list has fewer writers than required.
//
// How to run:
//   cd tests/tools/parquet_fixtures && npm ci && node make_fixtures.mjs [--check] [--out DIR]
//     (no option)  write into tests/data/fixtures/parquet/ (replacing the fixtures there)
//     --out DIR    write into DIR instead
//     --check      write into a temporary directory and compare byte for byte with the
//                  committed files (or with --out DIR); exit 1 on any difference
//
// The data is pseudo-random but deterministic: a seeded xorshift32 generator, no
// Math.random, no clock. All three writers were found byte-deterministic (same
// package versions, same Node major); GZIP pages of hyparquet-writer are made with
// fflate (pure JS) rather than node:zlib, whose output may depend on the CPU.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import * as arrow from 'apache-arrow'
import * as pw from 'parquet-wasm/node'
import { DuckDBInstance } from '@duckdb/node-api'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'
import { parquetHeader } from 'hyparquet/src/column.js' // hyparquet's page-header parser (an exported internal module)
import { compressors as hyCompressors } from 'hyparquet-compressors'
import { gzipSync } from 'fflate'

const here = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(here, '../../..')
const defaultOut = path.join(repoRoot, 'tests/data/fixtures/parquet')
const WRITERS = ['parquet-wasm', 'duckdb', 'hyparquet-writer']

// ---------------------------------------------------------------------------
// Command line

function parseArgs(argv) {
  const args = { check: false, out: null }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--check') args.check = true
    else if (a === '--out') {
      if (i + 1 >= argv.length) usage('--out needs a directory')
      args.out = path.resolve(argv[++i])
    } else if (a === '-h' || a === '--help') usage()
    else usage(`unknown argument ${a}`)
  }
  return args
}

function usage(problem) {
  if (problem) console.error(`make_fixtures: ${problem}`)
  console.error('usage: node make_fixtures.mjs [--check] [--out DIR]')
  process.exit(problem ? 2 : 0)
}

function fail(message) {
  throw new Error(message)
}

// ---------------------------------------------------------------------------
// Deterministic pseudo-random numbers: xorshift32 on integers only.

class Rng {
  constructor(seed) {
    this.s = (seed >>> 0) || 0x9e3779b9
    for (let i = 0; i < 8; i++) this.next()
  }
  next() {
    let x = this.s
    x ^= x << 13; x >>>= 0
    x ^= x >>> 17
    x ^= x << 5; x >>>= 0
    this.s = x
    return x
  }
  /** integer in [lo, hi] */
  int(lo, hi) {
    return lo + (this.next() % (hi - lo + 1))
  }
  /** true with probability num/den */
  chance(num, den) {
    return this.next() % den < num
  }
  /** one of the keys of `weights` ({value: weight}), by weight */
  pick(weights) {
    const entries = Object.entries(weights)
    let total = 0
    for (const [, w] of entries) total += w
    let r = this.next() % total
    for (const [v, w] of entries) {
      if (r < w) return Number(v)
      r -= w
    }
    return Number(entries[entries.length - 1][0])
  }
}

// ---------------------------------------------------------------------------
// The tables

const REVLOG_COLUMNS = ['card_id', 'day_offset', 'rating', 'state', 'duration', 'elapsed_days', 'elapsed_seconds']

/**
 * A valid revlog: rows in chronological order, each card's first row with
 * elapsed_days = elapsed_seconds = -1, later rows with elapsed_days = the
 * day_offset difference to the card's previous row and elapsed_seconds >= 0.
 * Returns the first `rows` rows (a prefix of a valid revlog is valid).
 */
function makeRevlog({ seed, cards, rows, cardId }) {
  const rng = new Rng(seed)
  const events = []
  for (let k = 0; k < cards; k++) {
    const id = cardId(k)
    let t = rng.int(0, 25) * 86400 + rng.int(0, 86399) // seconds since day 0 starts
    let prevT = null
    let prevDay = null
    let state = 0
    let prevRating = null
    const reviews = rng.int(2, 24)
    for (let r = 0; r < reviews; r++) {
      if (prevT !== null) {
        if (state === 1 || state === 3 || rng.chance(1, 6)) t += rng.int(30, 7200) // same-day (re)learning step
        else t += rng.int(1, 40) * 86400 + rng.int(0, 3600) - 1800
      }
      const day = Math.floor(t / 86400)
      const manual = prevT !== null && rng.chance(1, 40)
      const rating = manual ? 0 : prevT === null ? rng.pick({ 1: 2, 3: 5, 4: 1 }) : rng.pick({ 1: 3, 2: 2, 3: 12, 4: 2 })
      if (prevT !== null) {
        // state of this review from the previous one (New -> Learning -> Review <-> Relearning)
        if (state === 0) state = 1
        else if (state === 1) state = prevRating >= 3 ? 2 : 1
        else if (state === 2) state = prevRating === 1 ? 3 : 2
        else if (state === 3) state = prevRating >= 3 ? 2 : 3
        if (manual) state = 4
      }
      events.push({
        t,
        card_id: id,
        day_offset: day,
        rating,
        state,
        duration: manual ? 0 : rng.int(400, 60000),
        elapsed_days: prevDay === null ? -1 : day - prevDay,
        elapsed_seconds: prevT === null ? -1 : t - prevT,
      })
      if (state === 4) state = 2
      prevT = t
      prevDay = day
      prevRating = rating
    }
  }
  events.sort((a, b) => a.t - b.t || a.card_id - b.card_id)
  if (events.length < rows) fail(`makeRevlog: only ${events.length} events for ${rows} rows`)
  const out = events.slice(0, rows)
  checkRevlog(out)
  return out
}

/** The C++ reader's rules, applied to what we generate (a bug here is ours). */
function checkRevlog(rows) {
  const last = new Map()
  let prev = null
  for (const [i, r] of rows.entries()) {
    const where = `generated revlog row ${i + 1}`
    if (prev && r.day_offset < prev.day_offset) fail(`${where}: day_offset decreases`)
    if (!(r.rating >= 0 && r.rating <= 4)) fail(`${where}: rating ${r.rating}`)
    if (!(r.state >= 0 && r.state <= 4)) fail(`${where}: state ${r.state}`)
    if (!(r.duration >= 0 && r.duration <= 2147483647)) fail(`${where}: duration ${r.duration}`)
    if (r.day_offset < 0) fail(`${where}: day_offset ${r.day_offset}`)
    const p = last.get(r.card_id)
    if (!p) {
      if (r.elapsed_days !== -1 || r.elapsed_seconds !== -1) fail(`${where}: first row of card not -1`)
    } else {
      if (r.elapsed_days !== r.day_offset - p.day_offset) fail(`${where}: elapsed_days`)
      if (r.elapsed_seconds < 0) fail(`${where}: elapsed_seconds`)
    }
    last.set(r.card_id, r)
    prev = r
  }
}

function makeCards({ seed, cardIds }) {
  const rng = new Rng(seed)
  const rows = []
  let note = 5000
  for (const [i, id] of cardIds.entries()) {
    if (i === 0 || !rng.chance(1, 3)) note += rng.int(1, 9) // about a third of the notes have two cards
    rows.push({
      card_id: id,
      note_id: i === 4 || i === 11 ? null : note,
      deck_id: i === 2 || i === 7 || i === 13 ? null : [1, 2, 3, 5, 8][rng.int(0, 4)],
    })
  }
  return rows
}

function makeDecks() {
  // deck 1 is the root of 2 and 3, 8 is the child of 5; 9 has no preset
  return [
    { deck_id: 1, parent_id: null, preset_id: 1 },
    { deck_id: 2, parent_id: 1, preset_id: 1 },
    { deck_id: 3, parent_id: 1, preset_id: 2 },
    { deck_id: 5, parent_id: null, preset_id: 2 },
    { deck_id: 8, parent_id: 5, preset_id: null },
    { deck_id: 9, parent_id: null, preset_id: null },
    { deck_id: 12, parent_id: 9, preset_id: 3 },
  ]
}

// The revlogs shared by the fixtures: small card ids (as in the real dataset),
// and large ones (beyond 32 bits, like Anki's millisecond ids).
const smallIds = k => k
const largeIds = k => 1500000000000 + k * 7919
const REVLOG_A = makeRevlog({ seed: 20240601, cards: 16, rows: 120, cardId: smallIds })
const REVLOG_B = makeRevlog({ seed: 977, cards: 24, rows: 200, cardId: largeIds })
const REVLOG_C = makeRevlog({ seed: 31337, cards: 12, rows: 90, cardId: smallIds })
const REVLOG_D = makeRevlog({ seed: 555, cards: 20, rows: 100, cardId: largeIds })
const CARD_IDS = Array.from({ length: 18 }, (_, k) => (k * 7) % 18) // a permutation of 0..17: unique, not sorted
const CARDS = makeCards({ seed: 4242, cardIds: CARD_IDS })
const DECKS = makeDecks()

/**
 * Column specs for a table: [{name, type, nullable, values}].
 * `types` maps a column to a type other than int64 ('int32', 'int16', 'int8',
 * 'uint32', 'uint8'); `nullable` is true, false, or a per-column map.
 */
function tableColumns(rows, names, { types = {}, nullable = true } = {}) {
  return names.map(name => ({
    name,
    type: types[name] ?? 'int64',
    nullable: typeof nullable === 'boolean' ? nullable : nullable[name] ?? true,
    values: rows.map(r => r[name]),
  }))
}

function revlogColumns(rows, opts = {}) {
  const cols = tableColumns(rows, REVLOG_COLUMNS, opts)
  if (opts.index) {
    // pandas' index as pyarrow writes it: the last column, int64, optional
    cols.push({ name: '__index_level_0__', type: 'int64', nullable: true, values: rows.map((_, i) => i) })
  }
  if (opts.note) {
    // an unknown string column between known ones
    const note = { name: 'note', type: 'utf8', nullable: true, values: rows.map((r, i) => (i % 7 === 3 ? null : `n${r.card_id % 5}-${i % 3}`)) }
    cols.splice(3, 0, note)
  }
  return cols
}

function withNull(columns, name, rowIndex) {
  return columns.map(c => (c.name !== name ? c : { ...c, nullable: true, values: c.values.map((v, i) => (i === rowIndex ? null : v)) }))
}

// ---------------------------------------------------------------------------
// The fixtures

const CARD_COLUMNS = ['card_id', 'note_id', 'deck_id']
const DECK_COLUMNS = ['deck_id', 'parent_id', 'preset_id']
const INT32_REVLOG = { day_offset: 'int32', rating: 'int8', state: 'int16', duration: 'uint32', elapsed_days: 'int32' }

const FIXTURES = [
  // ----- parquet-wasm (arrow-rs) -----
  {
    writer: 'parquet-wasm', name: 'revlogs_like_real', kind: 'revlogs',
    description: 'like the real dataset: every column INT64 OPTIONAL, SNAPPY, dictionary page + RLE_DICTIONARY data pages (v1), one row group, extra __index_level_0__ column',
    columns: revlogColumns(REVLOG_A, { index: true }),
    options: { compression: 'SNAPPY' },
    expect: { codec: 'SNAPPY', rowGroups: 1, pageTypes: ['DICTIONARY_PAGE', 'DATA_PAGE'], noPageTypes: ['DATA_PAGE_V2'], dictionaryColumns: 'all', allRepetition: 'OPTIONAL', allPhysical: 'INT64' },
  },
  {
    writer: 'parquet-wasm', name: 'revlogs_plain_uncompressed_required', kind: 'revlogs',
    description: 'every column INT64 REQUIRED, UNCOMPRESSED, PLAIN data pages (v1), no dictionary',
    columns: revlogColumns(REVLOG_A, { nullable: false }),
    options: { compression: 'UNCOMPRESSED', dictionary: false },
    expect: { codec: 'UNCOMPRESSED', rowGroups: 1, pageTypes: ['DATA_PAGE'], noPageTypes: ['DATA_PAGE_V2', 'DICTIONARY_PAGE'], plainColumns: 'all', allRepetition: 'REQUIRED', allPhysical: 'INT64' },
  },
  {
    writer: 'parquet-wasm', name: 'revlogs_zstd_v2_int32', kind: 'revlogs',
    description: 'ZSTD, DATA_PAGE_V2 (writer version 2); card_id, rating and state dictionary-encoded, the other columns PLAIN; arrow-rs leaves a v2 page uncompressed (is_compressed = false) when ZSTD does not make it smaller, so the file has both kinds of v2 pages; day_offset/elapsed_days INT32, rating INT32 (INT_8), state INT32 (INT_16), duration INT32 (UINT_32); card_id and elapsed_seconds INT64; REQUIRED and OPTIONAL columns mixed; large card ids',
    columns: revlogColumns(REVLOG_D, { types: INT32_REVLOG, nullable: { card_id: false, day_offset: false, rating: false, duration: false } }),
    options: { compression: 'ZSTD', writerVersion: 2, plainColumns: ['day_offset', 'duration', 'elapsed_days', 'elapsed_seconds'] },
    expect: {
      codec: 'ZSTD', rowGroups: 1, pageTypes: ['DATA_PAGE_V2', 'DICTIONARY_PAGE'], noPageTypes: ['DATA_PAGE'], dictionaryColumns: ['card_id', 'rating', 'state'],
      plainColumns: ['day_offset', 'duration', 'elapsed_days', 'elapsed_seconds'], v2Compressed: [true, false],
      columns: {
        card_id: { physical: 'INT64', repetition: 'REQUIRED' },
        day_offset: { physical: 'INT32', repetition: 'REQUIRED' },
        rating: { physical: 'INT32', repetition: 'REQUIRED', converted: 'INT_8', logical: 'INTEGER(8,signed)' },
        state: { physical: 'INT32', repetition: 'OPTIONAL', converted: 'INT_16', logical: 'INTEGER(16,signed)' },
        duration: { physical: 'INT32', repetition: 'REQUIRED', converted: 'UINT_32', logical: 'INTEGER(32,unsigned)' },
        elapsed_days: { physical: 'INT32', repetition: 'OPTIONAL' },
        elapsed_seconds: { physical: 'INT64', repetition: 'OPTIONAL' },
      },
    },
  },
  {
    writer: 'parquet-wasm', name: 'revlogs_gzip_rowgroups_pages', kind: 'revlogs',
    description: 'GZIP, 200 rows in 4 row groups of 50, PLAIN data pages (v1) with a 200-byte page size limit (several data pages per column chunk), no dictionary, INT64 OPTIONAL, large card ids',
    columns: revlogColumns(REVLOG_B),
    options: { compression: 'GZIP', dictionary: false, maxRowGroupSize: 50, dataPageSizeLimit: 200, writeBatchSize: 10 },
    expect: { codec: 'GZIP', rowGroups: 4, pageTypes: ['DATA_PAGE'], noPageTypes: ['DATA_PAGE_V2', 'DICTIONARY_PAGE'], plainColumns: 'all', multiPageColumns: 'all', allRepetition: 'OPTIONAL', allPhysical: 'INT64' },
  },
  {
    writer: 'parquet-wasm', name: 'revlogs_dict_fallback_pages', kind: 'revlogs',
    description: 'SNAPPY, v1 data pages, 256-byte page size limit and 64-byte dictionary page limit: high-cardinality columns start with a dictionary page + RLE_DICTIONARY data page, then fall back to PLAIN data pages in the same column chunk',
    columns: revlogColumns(REVLOG_B),
    options: { compression: 'SNAPPY', dictionaryPageSizeLimit: 64, dataPageSizeLimit: 256, writeBatchSize: 16 },
    expect: { codec: 'SNAPPY', rowGroups: 1, pageTypes: ['DICTIONARY_PAGE', 'DATA_PAGE'], noPageTypes: ['DATA_PAGE_V2'], dictionaryColumns: 'all', fallbackColumns: ['card_id', 'duration', 'elapsed_seconds'], multiPageColumns: ['card_id', 'duration', 'elapsed_seconds'] },
  },
  {
    writer: 'parquet-wasm', name: 'revlogs_delta_v2', kind: 'revlogs',
    description: 'DELTA_BINARY_PACKED data pages (DATA_PAGE_V2), no dictionary, UNCOMPRESSED, INT64 REQUIRED',
    columns: revlogColumns(REVLOG_C, { nullable: false }),
    options: { compression: 'UNCOMPRESSED', dictionary: false, encoding: 'DELTA_BINARY_PACKED', writerVersion: 2 },
    expect: { codec: 'UNCOMPRESSED', rowGroups: 1, pageTypes: ['DATA_PAGE_V2'], noPageTypes: ['DATA_PAGE', 'DICTIONARY_PAGE'], dataEncodingsAll: ['DELTA_BINARY_PACKED'], allRepetition: 'REQUIRED', allPhysical: 'INT64' },
    requires: ['DELTA_BINARY_PACKED'],
  },
  {
    writer: 'parquet-wasm', name: 'revlogs_null_rating', kind: 'revlogs',
    description: 'like revlogs_like_real (without the index column) but rating is null on row 8',
    columns: withNull(revlogColumns(REVLOG_A), 'rating', 7),
    options: { compression: 'SNAPPY' },
    expect: { codec: 'SNAPPY', rowGroups: 1, nulls: { rating: 1 } },
    error: 'null rating on row 8 (rating is required by the reader)',
  },
  {
    writer: 'parquet-wasm', name: 'cards_nulls', kind: 'cards',
    description: 'cards: card_id INT64 REQUIRED, note_id and deck_id INT64 OPTIONAL with nulls; SNAPPY, dictionary',
    columns: tableColumns(CARDS, CARD_COLUMNS, { nullable: { card_id: false } }),
    options: { compression: 'SNAPPY' },
    expect: { codec: 'SNAPPY', rowGroups: 1, nulls: { note_id: 2, deck_id: 3 }, columns: { card_id: { repetition: 'REQUIRED' }, note_id: { repetition: 'OPTIONAL' }, deck_id: { repetition: 'OPTIONAL' } } },
  },
  {
    writer: 'parquet-wasm', name: 'decks_nulls', kind: 'decks',
    description: 'decks: deck_id INT64 REQUIRED, parent_id and preset_id INT64 OPTIONAL with nulls; ZSTD, no dictionary (PLAIN)',
    columns: tableColumns(DECKS, DECK_COLUMNS, { nullable: { deck_id: false } }),
    options: { compression: 'ZSTD', dictionary: false },
    expect: { codec: 'ZSTD', rowGroups: 1, plainColumns: 'all', nulls: { parent_id: 3, preset_id: 2 }, columns: { deck_id: { repetition: 'REQUIRED' } } },
  },

  // ----- DuckDB -----
  {
    writer: 'duckdb', name: 'revlogs_like_real', kind: 'revlogs',
    description: 'like the real dataset: every column INT64 (BIGINT) OPTIONAL, SNAPPY, one row group, v1 data pages, extra __index_level_0__ column; DuckDB picks PLAIN_DICTIONARY (dictionary page) for low-cardinality columns and PLAIN for the others',
    columns: revlogColumns(REVLOG_A, { index: true }),
    options: { compression: 'snappy' },
    expect: { codec: 'SNAPPY', rowGroups: 1, pageTypes: ['DICTIONARY_PAGE', 'DATA_PAGE'], noPageTypes: ['DATA_PAGE_V2'], dictionaryColumns: ['rating', 'state'], dataEncodings: ['PLAIN_DICTIONARY'], allRepetition: 'OPTIONAL', allPhysical: 'INT64' },
  },
  {
    writer: 'duckdb', name: 'revlogs_zstd_v2_delta', kind: 'revlogs',
    description: 'ZSTD, PARQUET_VERSION V2: DELTA_BINARY_PACKED for high-cardinality columns and RLE_DICTIONARY for the others (DuckDB keeps v1 DATA_PAGE headers), large card ids',
    columns: revlogColumns(REVLOG_D),
    options: { compression: 'zstd', parquetVersion: 'V2' },
    expect: { codec: 'ZSTD', rowGroups: 1, pageTypes: ['DICTIONARY_PAGE', 'DATA_PAGE'], dataEncodings: ['DELTA_BINARY_PACKED', 'RLE_DICTIONARY'], allRepetition: 'OPTIONAL', allPhysical: 'INT64' },
    requires: ['DELTA_BINARY_PACKED'],
  },
  {
    writer: 'duckdb', name: 'revlogs_gzip_int_types', kind: 'revlogs',
    description: 'GZIP, v1 data pages; day_offset/elapsed_days INTEGER (INT32, INT_32), rating UTINYINT (INT32, UINT_8), state SMALLINT (INT32, INT_16), duration UINTEGER (INT32, UINT_32); an extra VARCHAR column note with nulls',
    columns: revlogColumns(REVLOG_C, { types: { day_offset: 'int32', rating: 'uint8', state: 'int16', duration: 'uint32', elapsed_days: 'int32' }, note: true }),
    options: { compression: 'gzip' },
    expect: {
      codec: 'GZIP', rowGroups: 1, pageTypes: ['DATA_PAGE'], noPageTypes: ['DATA_PAGE_V2'], nulls: { note: 13 },
      columns: {
        card_id: { physical: 'INT64' },
        day_offset: { physical: 'INT32', converted: 'INT_32' },
        rating: { physical: 'INT32', converted: 'UINT_8' },
        state: { physical: 'INT32', converted: 'INT_16' },
        duration: { physical: 'INT32', converted: 'UINT_32' },
        note: { physical: 'BYTE_ARRAY', converted: 'UTF8' },
      },
    },
  },
  {
    writer: 'duckdb', name: 'revlogs_uncompressed', kind: 'revlogs',
    description: 'UNCOMPRESSED, every column INT64 (BIGINT) OPTIONAL, v1 data pages, large card ids',
    columns: revlogColumns(REVLOG_D),
    options: { compression: 'uncompressed' },
    expect: { codec: 'UNCOMPRESSED', rowGroups: 1, pageTypes: ['DATA_PAGE'], noPageTypes: ['DATA_PAGE_V2'], plainColumns: ['duration', 'elapsed_seconds'], allPhysical: 'INT64' },
  },
  {
    writer: 'duckdb', name: 'revlogs_null_rating', kind: 'revlogs',
    description: 'revlogs with rating null on row 8, SNAPPY',
    columns: withNull(revlogColumns(REVLOG_C), 'rating', 7),
    options: { compression: 'snappy' },
    expect: { codec: 'SNAPPY', rowGroups: 1, nulls: { rating: 1 } },
    error: 'null rating on row 8 (rating is required by the reader)',
  },
  {
    writer: 'duckdb', name: 'cards_nulls', kind: 'cards',
    description: 'cards with null note_id and deck_id, SNAPPY',
    columns: tableColumns(CARDS, CARD_COLUMNS),
    options: { compression: 'snappy' },
    expect: { codec: 'SNAPPY', rowGroups: 1, nulls: { note_id: 2, deck_id: 3 } },
  },
  {
    writer: 'duckdb', name: 'cards_null_card_id', kind: 'cards',
    description: 'cards with card_id null on row 6, SNAPPY',
    columns: withNull(tableColumns(CARDS, CARD_COLUMNS), 'card_id', 5),
    options: { compression: 'snappy' },
    expect: { codec: 'SNAPPY', rowGroups: 1, nulls: { card_id: 1, note_id: 2, deck_id: 3 } },
    error: 'null card_id on row 6 (card_id must be non-null)',
  },
  {
    writer: 'duckdb', name: 'decks_nulls', kind: 'decks',
    description: 'decks with null parent_id and preset_id, GZIP',
    columns: tableColumns(DECKS, DECK_COLUMNS),
    options: { compression: 'gzip' },
    expect: { codec: 'GZIP', rowGroups: 1, nulls: { parent_id: 3, preset_id: 2 } },
  },

  // ----- hyparquet-writer -----
  {
    writer: 'hyparquet-writer', name: 'revlogs_snappy_dict', kind: 'revlogs',
    description: 'SNAPPY, DATA_PAGE_V2, dictionary page + RLE_DICTIONARY data pages in every column, INT64 OPTIONAL, extra string column note (with nulls), converted/logical types absent',
    columns: revlogColumns(REVLOG_A, { note: true }),
    options: { codec: 'SNAPPY', encoding: 'RLE_DICTIONARY' },
    expect: { codec: 'SNAPPY', rowGroups: 1, pageTypes: ['DATA_PAGE_V2', 'DICTIONARY_PAGE'], noPageTypes: ['DATA_PAGE'], dictionaryColumns: 'all', allRepetition: 'OPTIONAL', nulls: { note: 17 } },
  },
  {
    writer: 'hyparquet-writer', name: 'revlogs_gzip_rowgroups_pages_required', kind: 'revlogs',
    description: 'GZIP (fflate), 200 rows in 4 row groups of 50, PLAIN DATA_PAGE_V2 pages with a 160-byte page size (several pages per column chunk), every column REQUIRED; day_offset/elapsed_days INT32, rating INT32 (INT_8), state INT32 (INT_16), duration INT32 (UINT_32); large card ids',
    columns: revlogColumns(REVLOG_B, { types: INT32_REVLOG, nullable: false }),
    options: { codec: 'GZIP', encoding: 'PLAIN', rowGroupSize: 50, pageSize: 160 },
    expect: {
      codec: 'GZIP', rowGroups: 4, pageTypes: ['DATA_PAGE_V2'], noPageTypes: ['DATA_PAGE', 'DICTIONARY_PAGE'], plainColumns: 'all', multiPageColumns: 'all', allRepetition: 'REQUIRED',
      columns: {
        card_id: { physical: 'INT64' },
        day_offset: { physical: 'INT32' },
        rating: { physical: 'INT32', converted: 'INT_8' },
        state: { physical: 'INT32', converted: 'INT_16' },
        duration: { physical: 'INT32', converted: 'UINT_32' },
        elapsed_days: { physical: 'INT32' },
        elapsed_seconds: { physical: 'INT64' },
      },
    },
  },
  {
    writer: 'hyparquet-writer', name: 'revlogs_delta_uncompressed', kind: 'revlogs',
    description: 'UNCOMPRESSED, DELTA_BINARY_PACKED DATA_PAGE_V2 pages in every column, INT64 OPTIONAL',
    columns: revlogColumns(REVLOG_C),
    options: { codec: 'UNCOMPRESSED', encoding: 'DELTA_BINARY_PACKED' },
    expect: { codec: 'UNCOMPRESSED', rowGroups: 1, pageTypes: ['DATA_PAGE_V2'], noPageTypes: ['DATA_PAGE', 'DICTIONARY_PAGE'], dataEncodingsAll: ['DELTA_BINARY_PACKED'], allRepetition: 'OPTIONAL', allPhysical: 'INT64' },
    requires: ['DELTA_BINARY_PACKED'],
  },
  {
    writer: 'hyparquet-writer', name: 'revlogs_null_rating', kind: 'revlogs',
    description: 'revlogs with rating null on row 8, SNAPPY, DATA_PAGE_V2',
    columns: withNull(revlogColumns(REVLOG_A), 'rating', 7),
    options: { codec: 'SNAPPY' },
    expect: { codec: 'SNAPPY', rowGroups: 1, nulls: { rating: 1 } },
    error: 'null rating on row 8 (rating is required by the reader)',
  },
  {
    writer: 'hyparquet-writer', name: 'cards_nulls', kind: 'cards',
    description: 'cards: card_id REQUIRED, note_id and deck_id OPTIONAL with nulls; UNCOMPRESSED, PLAIN',
    columns: tableColumns(CARDS, CARD_COLUMNS, { nullable: { card_id: false } }),
    options: { codec: 'UNCOMPRESSED', encoding: 'PLAIN' },
    expect: { codec: 'UNCOMPRESSED', rowGroups: 1, plainColumns: 'all', nulls: { note_id: 2, deck_id: 3 }, columns: { card_id: { repetition: 'REQUIRED' }, deck_id: { repetition: 'OPTIONAL' } } },
  },
  {
    writer: 'hyparquet-writer', name: 'decks_nulls', kind: 'decks',
    description: 'decks: deck_id REQUIRED, parent_id and preset_id OPTIONAL with nulls; SNAPPY, dictionary',
    columns: tableColumns(DECKS, DECK_COLUMNS, { nullable: { deck_id: false } }),
    options: { codec: 'SNAPPY', encoding: 'RLE_DICTIONARY' },
    expect: { codec: 'SNAPPY', rowGroups: 1, dictionaryColumns: 'all', nulls: { parent_id: 3, preset_id: 2 }, columns: { deck_id: { repetition: 'REQUIRED' } } },
  },
]

// ---------------------------------------------------------------------------
// Writers

function packageVersion(name) {
  return JSON.parse(fs.readFileSync(path.join(here, 'node_modules', name, 'package.json'), 'utf8')).version
}

const ARROW_TYPES = {
  int64: () => new arrow.Int64(), int32: () => new arrow.Int32(), int16: () => new arrow.Int16(), int8: () => new arrow.Int8(),
  uint32: () => new arrow.Uint32(), uint8: () => new arrow.Uint8(), utf8: () => new arrow.Utf8(),
}

function writeWithParquetWasm(columns, o) {
  const fields = columns.map(c => new arrow.Field(c.name, ARROW_TYPES[c.type](), c.nullable))
  const vectors = columns.map(c => {
    const values = c.type === 'int64' ? c.values.map(v => (v === null ? null : BigInt(v))) : c.values
    return arrow.vectorFromArray(values, ARROW_TYPES[c.type]())
  })
  const length = columns[0].values.length
  const schema = new arrow.Schema(fields)
  const data = arrow.makeData({ type: new arrow.Struct(fields), length, nullCount: 0, children: vectors.map(v => v.data[0]) })
  const table = new arrow.Table(schema, [new arrow.RecordBatch(schema, data)])
  const ipc = arrow.tableToIPC(table, 'stream')

  let b = new pw.WriterPropertiesBuilder()
  b = b.setCompression(pw.Compression[o.compression])
  if (o.dictionary === false) b = b.setDictionaryEnabled(false)
  // no dictionary and PLAIN (with writer version 2, arrow-rs would fall back to DELTA_BINARY_PACKED)
  for (const col of o.plainColumns ?? []) b = b.setColumnDictionaryEnabled(col, false).setColumnEncoding(col, pw.Encoding.PLAIN)
  if (o.encoding) b = b.setEncoding(pw.Encoding[o.encoding])
  if (o.writerVersion === 2) b = b.setWriterVersion(pw.WriterVersion.V2)
  if (o.maxRowGroupSize) b = b.setMaxRowGroupSize(o.maxRowGroupSize)
  if (o.dataPageSizeLimit) b = b.setDataPageSizeLimit(o.dataPageSizeLimit)
  if (o.dictionaryPageSizeLimit) b = b.setDictionaryPageSizeLimit(o.dictionaryPageSizeLimit)
  if (o.writeBatchSize) b = b.setWriteBatchSize(o.writeBatchSize)
  return pw.writeParquet(pw.Table.fromIPCStream(ipc), b.build())
}

const DUCKDB_TYPES = { int64: 'BIGINT', int32: 'INTEGER', int16: 'SMALLINT', int8: 'TINYINT', uint32: 'UINTEGER', uint8: 'UTINYINT', utf8: 'VARCHAR' }

let duckdb = null
async function duckConnection() {
  if (!duckdb) {
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' })
    duckdb = await instance.connect()
  }
  return duckdb
}

function sqlString(s) {
  return `'${String(s).replaceAll("'", "''")}'`
}

function sqlLiteral(v, type) {
  if (v === null) return 'NULL'
  return type === 'utf8' ? sqlString(v) : String(v)
}

async function writeWithDuckDB(columns, o, tmpDir) {
  const con = await duckConnection()
  const decl = columns.map(c => `"${c.name}" ${DUCKDB_TYPES[c.type]}${c.nullable ? '' : ' NOT NULL'}`).join(', ')
  await con.run('DROP TABLE IF EXISTS t')
  await con.run(`CREATE TABLE t (${decl})`)
  const n = columns[0].values.length
  const tuples = []
  for (let i = 0; i < n; i++) tuples.push(`(${columns.map(c => sqlLiteral(c.values[i], c.type)).join(', ')})`)
  await con.run(`INSERT INTO t VALUES ${tuples.join(', ')}`)
  const file = path.join(tmpDir, 'duckdb_out.parquet')
  const opts = ['FORMAT parquet', `COMPRESSION ${o.compression}`]
  if (o.parquetVersion) opts.push(`PARQUET_VERSION ${o.parquetVersion}`)
  await con.run(`COPY (SELECT * FROM t) TO ${sqlString(file)} (${opts.join(', ')})`)
  const bytes = new Uint8Array(fs.readFileSync(file))
  fs.rmSync(file)
  return bytes
}

const HYPARQUET_SCHEMA = {
  int64: { type: 'INT64' }, int32: { type: 'INT32' }, int16: { type: 'INT32', converted_type: 'INT_16' }, int8: { type: 'INT32', converted_type: 'INT_8' },
  uint32: { type: 'INT32', converted_type: 'UINT_32' }, uint8: { type: 'INT32', converted_type: 'UINT_8' }, utf8: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
}

function writeWithHyparquetWriter(columns, o) {
  const schema = [{ name: 'root', num_children: columns.length }]
  const columnData = []
  for (const c of columns) {
    schema.push({ name: c.name, ...HYPARQUET_SCHEMA[c.type], repetition_type: c.nullable ? 'OPTIONAL' : 'REQUIRED' })
    const data = c.type === 'int64' ? c.values.map(v => (v === null ? null : BigInt(v))) : c.values
    const col = { name: c.name, data }
    // strings stay dictionary-free unless asked: only integer columns take the file's encoding
    if (o.encoding && c.type !== 'utf8') col.encoding = o.encoding
    columnData.push(col)
  }
  const options = { columnData, schema, codec: o.codec }
  if (o.codec === 'GZIP') options.compressors = { GZIP: bytes => gzipSync(bytes, { level: 6, mtime: 0 }) }
  if (o.rowGroupSize) options.rowGroupSize = o.rowGroupSize
  if (o.pageSize) options.pageSize = o.pageSize
  return new Uint8Array(parquetWriteBuffer(options))
}

async function writeFixture(fx, tmpDir) {
  if (fx.writer === 'parquet-wasm') return writeWithParquetWasm(fx.columns, fx.options)
  if (fx.writer === 'duckdb') return writeWithDuckDB(fx.columns, fx.options, tmpDir)
  if (fx.writer === 'hyparquet-writer') return writeWithHyparquetWriter(fx.columns, fx.options)
  fail(`unknown writer ${fx.writer}`)
}

// ---------------------------------------------------------------------------
// Reading back: properties (hyparquet's metadata reader + page headers) and values

const num = v => (typeof v === 'bigint' ? Number(v) : v)

function logicalName(lt) {
  if (!lt) return null
  if (lt.type === 'INTEGER') return `INTEGER(${lt.bitWidth},${lt.isSigned ? 'signed' : 'unsigned'})`
  return lt.type
}

/** Every page header of one column chunk, walked from its first page to its end. */
function chunkPages(view, meta, where) {
  const dict = meta.dictionary_page_offset !== undefined ? num(meta.dictionary_page_offset) : 0
  const data = num(meta.data_page_offset)
  let off = dict > 0 && dict < data ? dict : data
  const end = off + num(meta.total_compressed_size)
  const pages = []
  while (off < end) {
    const reader = { view, offset: off }
    const h = parquetHeader(reader)
    const page = { type: h.type, encoding: null, levels: null, v2Compressed: null, values: null }
    if (h.type === 'DICTIONARY_PAGE') {
      page.encoding = h.dictionary_page_header.encoding
      page.values = h.dictionary_page_header.num_values
    } else if (h.type === 'DATA_PAGE') {
      page.encoding = h.data_page_header.encoding
      page.levels = h.data_page_header.definition_level_encoding
      page.values = h.data_page_header.num_values
    } else if (h.type === 'DATA_PAGE_V2') {
      page.encoding = h.data_page_header_v2.encoding
      page.v2Compressed = h.data_page_header_v2.is_compressed !== false
      page.values = h.data_page_header_v2.num_values
    }
    pages.push(page)
    off = reader.offset + h.compressed_page_size
  }
  if (off !== end) fail(`${where}: page headers end at ${off}, the column chunk at ${end}`)
  return pages
}

function addCount(obj, key, n = 1) {
  obj[key] = (obj[key] ?? 0) + n
}

function pushUnique(list, v) {
  if (!list.includes(v)) list.push(v)
}

function inspect(bytes, where) {
  const md = parquetMetadata(bytes)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const leaves = md.schema.filter(e => e.type)
  if (md.schema.length !== leaves.length + 1) fail(`${where}: nested schema`)
  const columns = leaves.map(e => ({
    name: e.name,
    physical_type: e.type,
    repetition: e.repetition_type ?? null,
    converted_type: e.converted_type ?? null,
    logical_type: logicalName(e.logical_type),
    codecs: [],
    encodings: [], // ColumnMetaData.encodings, union over row groups
    encoding_stats: [], // ColumnMetaData.encoding_stats as PAGE_TYPE:ENCODING, union (empty: not written)
    pages: {}, // from the page headers: PAGE_TYPE:ENCODING -> count, whole file
    data_pages_per_chunk: [],
    def_level_encodings: [], // v1 data pages
    v2_is_compressed: [], // v2 data pages
    null_count_statistic: 0,
    nulls: 0, // decoded, filled in later
  }))
  for (const [g, rg] of md.row_groups.entries()) {
    if (rg.columns.length !== columns.length) fail(`${where}: row group ${g} has ${rg.columns.length} columns`)
    for (const [i, chunk] of rg.columns.entries()) {
      const c = columns[i]
      const m = chunk.meta_data
      if (m.path_in_schema.join('.') !== c.name) fail(`${where}: column ${i} of row group ${g} is ${m.path_in_schema.join('.')}`)
      pushUnique(c.codecs, m.codec)
      for (const e of m.encodings ?? []) pushUnique(c.encodings, e)
      for (const s of m.encoding_stats ?? []) pushUnique(c.encoding_stats, `${s.page_type}:${s.encoding}`)
      if (c.null_count_statistic !== null) {
        const nc = m.statistics?.null_count
        c.null_count_statistic = nc === undefined ? null : c.null_count_statistic + num(nc)
      }
      const pages = chunkPages(view, m, `${where} row group ${g} column ${c.name}`)
      let dataPages = 0
      let values = 0
      for (const p of pages) {
        addCount(c.pages, `${p.type}:${p.encoding}`)
        if (p.type !== 'DICTIONARY_PAGE') {
          dataPages++
          values += p.values
        }
        if (p.levels) pushUnique(c.def_level_encodings, p.levels)
        if (p.v2Compressed !== null) pushUnique(c.v2_is_compressed, p.v2Compressed)
      }
      if (values !== num(m.num_values)) fail(`${where}: ${c.name} pages hold ${values} values, the metadata says ${num(m.num_values)}`)
      c.data_pages_per_chunk.push(dataPages)
    }
  }
  return {
    created_by: md.created_by ?? null,
    format_version: md.version,
    num_rows: num(md.num_rows),
    row_groups: md.row_groups.length,
    rows_per_row_group: md.row_groups.map(rg => num(rg.num_rows)),
    columns,
  }
}

const show = v => (v === null || v === undefined ? '' : typeof v === 'bigint' ? v.toString() : String(v))

async function readWithHyparquet(bytes) {
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  const rows = await parquetReadObjects({ file: buf, compressors: hyCompressors })
  return rows
}

async function readWithDuckDB(file, names) {
  const con = await duckConnection()
  const reader = await con.runAndReadAll(`SELECT ${names.map(n => `"${n}"`).join(', ')} FROM read_parquet(${sqlString(file)})`)
  return reader.getRowsJS().map(r => Object.fromEntries(names.map((n, i) => [n, r[i]])))
}

function readWithParquetWasm(bytes, names) {
  const table = arrow.tableFromIPC(pw.readParquet(bytes).intoIPCStream())
  const out = []
  const cols = names.map(n => table.getChild(n))
  for (let i = 0; i < table.numRows; i++) out.push(Object.fromEntries(names.map((n, j) => [n, cols[j].get(i)])))
  return out
}

function compareRows(label, got, expected, names, where) {
  if (got.length !== expected.length) fail(`${where}: ${label} reads ${got.length} rows, expected ${expected.length}`)
  for (let i = 0; i < expected.length; i++) {
    for (const n of names) {
      const a = show(got[i][n])
      const b = expected[i][n]
      if (a !== b) fail(`${where}: ${label} reads ${n} = '${a}' on row ${i + 1}, expected '${b}'`)
    }
  }
}

// ---------------------------------------------------------------------------
// Expectations: what each fixture is made for, checked on what was read back

function checkExpect(fx, props, where) {
  const e = fx.expect
  const cols = props.columns
  const byName = Object.fromEntries(cols.map(c => [c.name, c]))
  const names = list => (list === 'all' ? cols.map(c => c.name) : list)
  const col = n => byName[n] ?? fail(`${where}: no column ${n}`)
  const pageKeys = c => Object.keys(c.pages)
  const dataEncodings = c => pageKeys(c).filter(k => !k.startsWith('DICTIONARY_PAGE')).map(k => k.split(':')[1])
  const allPageTypes = new Set(cols.flatMap(c => pageKeys(c).map(k => k.split(':')[0])))
  const allDataEncodings = new Set(cols.flatMap(dataEncodings))

  const expectedNames = fx.columns.map(c => c.name).join(',')
  if (cols.map(c => c.name).join(',') !== expectedNames) fail(`${where}: columns ${cols.map(c => c.name)} != ${expectedNames}`)
  if (props.num_rows !== fx.columns[0].values.length) fail(`${where}: ${props.num_rows} rows`)
  if (e.codec) for (const c of cols) if (c.codecs.join() !== e.codec) fail(`${where}: ${c.name} has codec ${c.codecs}, expected ${e.codec}`)
  if (e.rowGroups !== undefined && props.row_groups !== e.rowGroups) fail(`${where}: ${props.row_groups} row groups, expected ${e.rowGroups}`)
  for (const t of e.pageTypes ?? []) if (!allPageTypes.has(t)) fail(`${where}: no ${t} page`)
  for (const t of e.noPageTypes ?? []) if (allPageTypes.has(t)) fail(`${where}: has a ${t} page`)
  for (const enc of e.dataEncodings ?? []) if (!allDataEncodings.has(enc)) fail(`${where}: no data page encoded ${enc}`)
  for (const enc of e.dataEncodingsAll ?? []) {
    for (const c of cols) if (dataEncodings(c).join() !== enc) fail(`${where}: ${c.name} data pages are ${dataEncodings(c)}, expected only ${enc}`)
  }
  for (const n of names(e.dictionaryColumns ?? [])) {
    const c = col(n)
    if (!pageKeys(c).some(k => k.startsWith('DICTIONARY_PAGE'))) fail(`${where}: ${n} has no dictionary page`)
    if (!dataEncodings(c).some(x => x === 'RLE_DICTIONARY' || x === 'PLAIN_DICTIONARY')) fail(`${where}: ${n} has no dictionary-encoded data page`)
  }
  for (const n of names(e.plainColumns ?? [])) {
    const c = col(n)
    if (pageKeys(c).some(k => k.startsWith('DICTIONARY_PAGE'))) fail(`${where}: ${n} has a dictionary page`)
    if (dataEncodings(c).join() !== 'PLAIN') fail(`${where}: ${n} data pages are ${dataEncodings(c)}, expected PLAIN`)
  }
  for (const n of e.fallbackColumns ?? []) {
    const d = dataEncodings(col(n))
    if (!(d.includes('RLE_DICTIONARY') && d.includes('PLAIN'))) fail(`${where}: ${n} has no dictionary fallback (data pages ${d})`)
  }
  for (const flag of e.v2Compressed ?? []) {
    if (!cols.some(c => c.v2_is_compressed.includes(flag))) fail(`${where}: no DATA_PAGE_V2 page with is_compressed = ${flag}`)
  }
  for (const n of names(e.multiPageColumns ?? [])) {
    const c = col(n)
    if (Math.min(...c.data_pages_per_chunk) < 2) fail(`${where}: ${n} has column chunks of ${c.data_pages_per_chunk} data pages, expected several each`)
  }
  if (e.allRepetition) for (const c of cols) if (c.repetition !== e.allRepetition) fail(`${where}: ${c.name} is ${c.repetition}`)
  if (e.allPhysical) for (const c of cols) if (c.name !== 'note' && c.physical_type !== e.allPhysical) fail(`${where}: ${c.name} is ${c.physical_type}`)
  for (const [n, want] of Object.entries(e.columns ?? {})) {
    const c = col(n)
    if (want.physical && c.physical_type !== want.physical) fail(`${where}: ${n} is ${c.physical_type}, expected ${want.physical}`)
    if (want.repetition && c.repetition !== want.repetition) fail(`${where}: ${n} is ${c.repetition}, expected ${want.repetition}`)
    if (want.converted && c.converted_type !== want.converted) fail(`${where}: ${n} has converted type ${c.converted_type}, expected ${want.converted}`)
    if (want.logical && c.logical_type !== want.logical) fail(`${where}: ${n} has logical type ${c.logical_type}, expected ${want.logical}`)
  }
  const nulls = e.nulls ?? {}
  for (const c of cols) {
    const want = nulls[c.name] ?? 0
    if (c.nulls !== want) fail(`${where}: ${c.name} has ${c.nulls} nulls, expected ${want}`)
    if (c.null_count_statistic !== null && c.null_count_statistic !== want) fail(`${where}: ${c.name} null_count statistic ${c.null_count_statistic}, expected ${want}`)
  }
  // the declared repetition is what the writer was asked for (DuckDB writes every column OPTIONAL)
  if (fx.writer !== 'duckdb') {
    for (const spec of fx.columns) {
      const want = spec.nullable ? 'OPTIONAL' : 'REQUIRED'
      if (col(spec.name).repetition !== want) fail(`${where}: ${spec.name} is ${col(spec.name).repetition}, asked for ${want}`)
    }
  }
}

// ---------------------------------------------------------------------------
// Coverage across the whole set, from the read-back properties

function coverage(entries) {
  const cov = {}
  const add = (prop, writer) => {
    cov[prop] ??= []
    pushUnique(cov[prop], writer)
  }
  for (const { writer, props, kind, expected, extra } of entries) {
    if (props.row_groups > 1) add('several row groups', writer)
    if (extra.length) add('extra unknown column', writer)
    if (kind === 'revlogs' && expected === 'error' && props.columns.find(c => c.name === 'rating').nulls > 0) add('null rating (error)', writer)
    if (kind === 'cards' && expected === 'ok' && props.columns.find(c => c.name === 'deck_id').nulls > 0) add('null deck_id in cards (ok)', writer)
    if (kind === 'decks' && expected === 'ok' && props.columns.some(c => c.name !== 'deck_id' && c.nulls > 0)) add('null parent_id/preset_id in decks (ok)', writer)
    for (const c of props.columns) {
      for (const codec of c.codecs) add(`codec ${codec}`, writer)
      const keys = Object.keys(c.pages)
      for (const k of keys) {
        const [type, enc] = k.split(':')
        add(`page ${type}`, writer)
        if (type !== 'DICTIONARY_PAGE') add(`data page encoding ${enc}`, writer)
      }
      if (keys.some(k => k.startsWith('DICTIONARY_PAGE'))) add('dictionary-encoded column', writer)
      if (keys.length && keys.every(k => k.endsWith(':PLAIN') && !k.startsWith('DICTIONARY_PAGE'))) add('plain-encoded column (no dictionary)', writer)
      if (keys.some(k => /_DICTIONARY$/.test(k)) && keys.some(k => /^DATA_PAGE(_V2)?:PLAIN$/.test(k))) add('dictionary fallback to PLAIN in one chunk', writer)
      if (Math.max(...c.data_pages_per_chunk) > 1) add('several data pages per column chunk', writer)
      add(`repetition ${c.repetition}`, writer)
      if (c.physical_type === 'INT32') add('physical INT32', writer)
      if (c.physical_type === 'INT64') add('physical INT64', writer)
      if (/^UINT_/.test(c.converted_type ?? '') || /unsigned/.test(c.logical_type ?? '')) add('unsigned integer type', writer)
      if (c.physical_type === 'BYTE_ARRAY') add('string column', writer)
      if (c.codecs.some(x => x !== 'UNCOMPRESSED')) {
        if (c.v2_is_compressed.includes(true)) add('DATA_PAGE_V2 compressed (codec != UNCOMPRESSED, is_compressed true)', writer)
        if (c.v2_is_compressed.includes(false)) add('DATA_PAGE_V2 left uncompressed (codec != UNCOMPRESSED, is_compressed false)', writer)
      }
    }
  }
  // what the set must cover, and by how many writers at least
  const needed = {
    'codec UNCOMPRESSED': 2, 'codec SNAPPY': 2, 'codec ZSTD': 2, 'codec GZIP': 2,
    'page DATA_PAGE': 2, 'page DATA_PAGE_V2': 2, 'page DICTIONARY_PAGE': 2,
    'data page encoding RLE_DICTIONARY': 2, 'data page encoding PLAIN_DICTIONARY': 1, 'data page encoding PLAIN': 2,
    'data page encoding DELTA_BINARY_PACKED': 2,
    'dictionary-encoded column': 2, 'plain-encoded column (no dictionary)': 2, 'dictionary fallback to PLAIN in one chunk': 1,
    'several row groups': 2, 'several data pages per column chunk': 2,
    'repetition REQUIRED': 2, 'repetition OPTIONAL': 2, 'physical INT32': 2, 'physical INT64': 2, 'unsigned integer type': 2,
    'null rating (error)': 2, 'null deck_id in cards (ok)': 2, 'null parent_id/preset_id in decks (ok)': 2,
    'extra unknown column': 2, 'string column': 2,
    'DATA_PAGE_V2 compressed (codec != UNCOMPRESSED, is_compressed true)': 2,
    'DATA_PAGE_V2 left uncompressed (codec != UNCOMPRESSED, is_compressed false)': 1,
  }
  for (const [prop, min] of Object.entries(needed)) {
    const n = cov[prop]?.length ?? 0
    if (n < min) fail(`coverage: '${prop}' comes from ${n} writer(s) (${cov[prop] ?? []}), at least ${min} needed`)
  }
  return Object.fromEntries(Object.keys(cov).sort().map(k => [k, cov[k].sort()]))
}

// ---------------------------------------------------------------------------
// Making the set

function csvText(columns) {
  const n = columns[0].values.length
  const lines = [columns.map(c => c.name).join(',')]
  for (let i = 0; i < n; i++) {
    lines.push(columns.map(c => {
      const v = c.values[i]
      if (typeof v === 'string' && (v === '' || /[",\n\r]/.test(v))) fail(`csv: value '${v}' cannot be written unquoted`)
      return show(v)
    }).join(','))
  }
  return lines.join('\n') + '\n'
}

/** JSON, indented down to `depth` levels of nesting; anything deeper (a column's properties) on one line. */
function jsonText(value, depth = 5) {
  const flat = v => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? Number(x) : x))
  const fmt = (v, level, pad) => {
    if (v === null || typeof v !== 'object' || level >= depth) return flat(v)
    const inner = pad + '  '
    if (Array.isArray(v)) {
      if (v.every(x => x === null || typeof x !== 'object')) return flat(v)
      return `[\n${v.map(x => inner + fmt(x, level + 1, inner)).join(',\n')}\n${pad}]`
    }
    const keys = Object.keys(v).filter(k => v[k] !== undefined)
    return `{\n${keys.map(k => `${inner}${JSON.stringify(k)}: ${fmt(v[k], level + 1, inner)}`).join(',\n')}\n${pad}}`
  }
  return fmt(value, 0, '') + '\n'
}

async function makeAll(outDir) {
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'srs-parquet-work-'))
  try {
    fs.mkdirSync(outDir, { recursive: true })
    for (const w of WRITERS) {
      const dir = path.join(outDir, w)
      if (fs.existsSync(dir)) {
        for (const f of fs.readdirSync(dir)) if (/\.(parquet|csv)$/.test(f)) fs.rmSync(path.join(dir, f))
      }
      fs.mkdirSync(dir, { recursive: true })
    }
    const versions = {
      'parquet-wasm': { package: 'parquet-wasm', version: packageVersion('parquet-wasm'), with: { 'apache-arrow': packageVersion('apache-arrow') } },
      'duckdb': { package: '@duckdb/node-api', version: packageVersion('@duckdb/node-api'), with: { '@duckdb/node-bindings': packageVersion('@duckdb/node-bindings') } },
      'hyparquet-writer': { package: 'hyparquet-writer', version: packageVersion('hyparquet-writer'), with: { fflate: packageVersion('fflate') } },
    }
    const entries = []
    for (const fx of FIXTURES) {
      const rel = `${fx.writer}/${fx.name}.parquet`
      const where = rel
      const bytes = await writeFixture(fx, tmpDir)
      const file = path.join(outDir, rel)
      fs.writeFileSync(file, bytes)
      fs.writeFileSync(file.replace(/\.parquet$/, '.csv'), csvText(fx.columns))

      const names = fx.columns.map(c => c.name)
      const expectedRows = fx.columns[0].values.map((_, i) => Object.fromEntries(fx.columns.map(c => [c.name, show(c.values[i])])))
      const props = inspect(bytes, where)
      const hyRows = await readWithHyparquet(bytes)
      compareRows('hyparquet', hyRows, expectedRows, names, where)
      compareRows('DuckDB', await readWithDuckDB(file, names), expectedRows, names, where)
      compareRows('parquet-wasm', readWithParquetWasm(bytes, names), expectedRows, names, where)
      for (const c of props.columns) c.nulls = hyRows.filter(r => r[c.name] === null || r[c.name] === undefined).length
      checkExpect(fx, props, where)

      const known = { revlogs: REVLOG_COLUMNS, cards: CARD_COLUMNS, decks: DECK_COLUMNS }[fx.kind]
      const extra = names.filter(n => !known.includes(n))
      const entry = {
        file: rel,
        csv: rel.replace(/\.parquet$/, '.csv'),
        writer: versions[fx.writer],
        kind: fx.kind,
        expected: fx.error ? 'error' : 'ok',
      }
      if (fx.error) entry.reason = fx.error
      if (fx.requires) entry.requires = fx.requires
      entry.description = fx.description
      entry.bytes = bytes.byteLength
      entry.extra_columns = extra
      entry.read_back = props
      entries.push({ writer: fx.writer, props, kind: fx.kind, expected: entry.expected, extra, entry })
      console.log(`ok  ${rel.padEnd(58)} ${String(bytes.byteLength).padStart(6)} B  ${props.columns[0].codecs}  rg=${props.row_groups}`)
    }
    const manifest = {
      about: 'Parquet fixtures for the srs Parquet reader, made by tests/tools/parquet_fixtures/make_fixtures.mjs; read_back holds the properties read from each file with hyparquet (metadata + page headers), nulls counted on the decoded values',
      reader_used_for_read_back: { package: 'hyparquet', version: packageVersion('hyparquet') },
      fixtures: entries.map(e => e.entry),
      coverage: coverage(entries),
    }
    fs.writeFileSync(path.join(outDir, 'manifest.json'), jsonText(manifest))
    const total = entries.reduce((s, e) => s + e.entry.bytes, 0)
    console.log(`${entries.length} fixtures, ${total} bytes of Parquet`)
  } finally {
    fs.rmSync(tmpDir, { recursive: true, force: true })
  }
}

/** Files under dir that this script makes (README.md is written by hand). */
function madeFiles(dir) {
  const out = []
  if (fs.existsSync(path.join(dir, 'manifest.json'))) out.push('manifest.json')
  for (const w of WRITERS) {
    const d = path.join(dir, w)
    if (!fs.existsSync(d)) continue
    for (const f of fs.readdirSync(d).sort()) if (/\.(parquet|csv)$/.test(f)) out.push(`${w}/${f}`)
  }
  return out
}

async function main() {
  const args = parseArgs(process.argv.slice(2))
  const target = args.out ?? defaultOut
  if (!args.check) {
    await makeAll(target)
    console.log(`wrote ${target}`)
    return 0
  }
  const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'srs-parquet-check-'))
  try {
    await makeAll(fresh)
    const want = madeFiles(fresh)
    const have = madeFiles(target)
    const problems = []
    for (const f of want) if (!have.includes(f)) problems.push(`missing: ${f}`)
    for (const f of have) if (!want.includes(f)) problems.push(`not made by this script: ${f}`)
    for (const f of want) {
      if (!have.includes(f)) continue
      const a = fs.readFileSync(path.join(fresh, f))
      const b = fs.readFileSync(path.join(target, f))
      if (!a.equals(b)) problems.push(`differs: ${f} (${b.length} bytes committed, ${a.length} regenerated)`)
    }
    if (problems.length) {
      for (const p of problems) console.error(`check: ${p}`)
      console.error(`check FAILED: ${problems.length} difference(s) against ${target}`)
      return 1
    }
    console.log(`check passed: ${want.length} files identical to ${target}`)
    return 0
  } finally {
    fs.rmSync(fresh, { recursive: true, force: true })
  }
}

main().then(code => process.exit(code), err => {
  console.error(`make_fixtures: ${err.stack ?? err}`)
  process.exit(1)
})
