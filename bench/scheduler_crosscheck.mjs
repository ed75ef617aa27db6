// SPDX-License-Identifier: MIT
// The node half of bench/scheduler_crosscheck.sh (run that script, not this
// file): replays every card of each dataset through fsrs-rs (npm
// @open-spaced-repetition/binding) and ts-fsrs, review by review, each library
// carrying its own memory state, and compares with srs's scheduler API (the
// rows bench/scheduler_replay prints for srs::models::Fsrs6 and the
// compatibility models sched::compat::FsrsRsF32 and sched::compat::TsFsrs):
//
//   node scheduler_crosscheck.mjs --prefix DIR --tool SCHEDULER_REPLAY FILE...
//
// Per review and parameter set (FSRS-6 defaults; srs's fit of the dataset):
//  * the four next states (stability, difficulty) for ratings 1..4: largest
//    relative difference |srs − library| / |library|;
//  * the retrievability at the review's interval from the state before it
//    (ts-fsrs's forgetting_curve; the binding exposes no retrievability);
//  * the next interval of each of the four states at desired retentions
//    0.7, 0.8, 0.9, 0.95, counted when different. fsrs-rs returns the
//    unrounded f32 interval, rounded here as its simulator does,
//    clamp(round(x), 1, 36500); ts-fsrs rounds itself (next_interval, fuzz off).
//  * the peers themselves: ts-fsrs's states and intervals against fsrs-rs's
//    (the "peers" lines), which shows where the two libraries disagree.
// PASS: srs::models::Fsrs6's states within 1e-4 relative of both libraries,
// and each compatibility model's intervals equal to its library's (its states
// within 1e-4 too). Fsrs6's own interval differences are listed with the
// library's unrounded interval: they sit at half days, where f32 (fsrs-rs) or
// 8-decimal (ts-fsrs) rounding tips them (bench/scheduler_exact.py checks
// Fsrs6's intervals against 40-digit arithmetic).
// Conventions of the comparison (docs/embedding.md "Agreement with fsrs-rs and ts-fsrs"): intervals in
// whole days, the first review at 0; ts-fsrs driven through its algorithm
// API (next_state, forgetting_curve, next_interval) with enable_short_term on
// (same-day branch at t = 0, as fsrs-rs), fuzz off, maximum_interval 36500;
// parameters given as they are (the tool clips srs's fit to w0..w3 >= 0.1 and
// w19 >= 0.01 beforehand, the bounds ts-fsrs imposes).
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const args = process.argv.slice(2)
let prefix = null
let tool = null
const files = []
for (let k = 0; k < args.length; ++k) {
  if (args[k] === '--prefix') prefix = args[++k]
  else if (args[k] === '--tool') tool = args[++k]
  else files.push(args[k])
}
if (!prefix || !tool || files.length === 0) {
  console.error('usage: node scheduler_crosscheck.mjs --prefix DIR --tool SCHEDULER_REPLAY FILE...')
  process.exit(2)
}

const require = createRequire(path.join(path.resolve(prefix), 'node_modules', 'index.js'))
const binding = require('@open-spaced-repetition/binding')
const tsfsrs = require('ts-fsrs')
const version = (name) =>
  JSON.parse(readFileSync(path.join(prefix, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')).version

const MAX_INTERVAL = 36500
const rsRound = (x) => Math.min(Math.max(Math.round(x), 1), MAX_INTERVAL) // Rust's round = JS's for x > 0
const rel = (ours, theirs) => Math.abs(ours - theirs) / Math.max(Math.abs(theirs), 1e-300)
const fmtE = (x) => x.toExponential(2).padStart(9)

function emptyStats() {
  return { reviews: 0, states: 0, intervals: 0, dS: 0, dD: 0, dR: 0, mismatches: 0, halfDay: 0, example: null }
}

// Distance of x from the nearest half-integer (where rounding flips).
const fromHalf = (x) => Math.abs(x - Math.floor(x) - 0.5)

/// Compares one srs model's rows with one library's values for one review.
function record(st, row, lib, nR, oursLabel = 'srs', libLabel = 'library') {
  st.reviews += 1
  if (lib.R !== null) st.dR = Math.max(st.dR, rel(row[0], lib.R))
  for (let g = 1; g <= 4; ++g) {
    st.dS = Math.max(st.dS, rel(row[2 * g - 1], lib.S[g - 1]))
    st.dD = Math.max(st.dD, rel(row[2 * g], lib.D[g - 1]))
    st.states += 1
    for (let j = 0; j < nR; ++j) {
      const ours = row[9 + 4 * j + (g - 1)]
      st.intervals += 1
      if (ours !== lib.I[j][g - 1]) {
        st.mismatches += 1
        st.halfDay = Math.max(st.halfDay, fromHalf(lib.raw[j][g - 1]))
        st.example ??= `${lib.where(g, j)}: ${oursLabel} ${ours}, ${libLabel} ${lib.I[j][g - 1]} (unrounded ${lib.raw[j][g - 1]})`
      }
    }
  }
}

function compare(file) {
  const run = spawnSync(tool, [file], { encoding: 'utf8', maxBuffer: 1 << 30 })
  if (run.status !== 0) throw new Error(`${tool} ${file} failed: ${run.stderr}`)
  const lines = run.stdout.trim().split('\n')
  const head = JSON.parse(lines[0])
  const cards = lines.slice(1).map((l) => JSON.parse(l))
  const nR = head.retentions.length
  const results = []
  for (const [name, w] of Object.entries(head.params)) {
    const rs = new binding.FSRSBinding(w)
    const ts = head.retentions.map(
      (r) =>
        new tsfsrs.FSRS({
          w,
          request_retention: r,
          maximum_interval: MAX_INTERVAL,
          enable_fuzz: false,
          enable_short_term: true,
        }),
    )
    const tsClipped = ts[0].parameters.w.some((x, k) => x !== w[k])
    // srs's double model against each library, and each compatibility model against its library.
    // The last pair, ts-fsrs against fsrs-rs, is the peers' own agreement (no srs in it).
    const stats = {
      srsRs: emptyStats(),
      srsTs: emptyStats(),
      compatRs: emptyStats(),
      compatTs: emptyStats(),
      peers: emptyStats(),
    }
    for (const card of cards) {
      let rsState = null
      let tsState = null
      const rows = card.v[name]
      card.g.forEach((rating, k) => {
        const t = k === 0 ? 0 : card.t[k]
        const where = (g, j) => `card ${card.c} review ${k + 1} rating ${g} retention ${head.retentions[j]}`
        // fsrs-rs: next_states per retention; intervals rounded as its simulator does.
        const rsNext = head.retentions.map((r) => {
          const n = rs.nextStates(rsState, r, t)
          return [n.again, n.hard, n.good, n.easy]
        })
        const rsLib = {
          R: null,
          S: rsNext[0].map((o) => o.memory.stability),
          D: rsNext[0].map((o) => o.memory.difficulty),
          raw: rsNext.map((os) => os.map((o) => o.interval)),
          I: rsNext.map((os) => os.map((o) => rsRound(o.interval))),
          where,
        }
        // ts-fsrs: next_state per rating, forgetting_curve, next_interval (fuzz off).
        const tsOut = [1, 2, 3, 4].map((g) => ts[0].next_state(tsState, t, g))
        const tsLib = {
          R: k > 0 ? ts[0].forgetting_curve(t, tsState.stability) : null,
          S: tsOut.map((o) => o.stability),
          D: tsOut.map((o) => o.difficulty),
          raw: ts.map((f) => tsOut.map((o) => o.stability * f.interval_modifier)),
          I: ts.map((f) => tsOut.map((o) => f.next_interval(o.stability, t))),
          where,
        }
        record(stats.srsRs, rows.srs[k], rsLib, nR)
        record(stats.srsTs, rows.srs[k], tsLib, nR)
        record(stats.compatRs, rows.rs[k], rsLib, nR)
        record(stats.compatTs, rows.ts[k], tsLib, nR)
        const tsRow = [null, ...[0, 1, 2, 3].flatMap((i) => [tsLib.S[i], tsLib.D[i]]), ...tsLib.I.flat()]
        record(stats.peers, tsRow, rsLib, nR, 'ts-fsrs', 'fsrs-rs')
        rsState = rsNext[0][rating - 1].memory
        tsState = tsOut[rating - 1]
      })
    }
    results.push({ name, w, fit: head.fit, tsClipped, stats })
  }
  return { dataset: path.basename(path.dirname(file)), results }
}

console.log(
  `fsrs-rs: @open-spaced-repetition/binding ${version('@open-spaced-repetition/binding')}; ts-fsrs ${version('ts-fsrs')}`,
)
console.log('every review of every card, FSRS-6 defaults and srs\'s fit of the dataset, retentions 0.7, 0.8, 0.9, 0.95')
console.log('S, D, R: largest relative difference; ivl≠: next intervals that differ\n')
const cols = (st, withR) =>
  `${fmtE(st.dS)} ${fmtE(st.dD)}${withR ? ` ${fmtE(st.dR)}` : ''} ${String(st.mismatches).padStart(5)}`
console.log(
  `${''.padEnd(52)} | ${'srs::models::Fsrs6 (double) vs'.padEnd(62)} | ${'sched::compat models vs their library'.padEnd(62)}`,
)
console.log(
  `${'dataset'.padEnd(33)} ${'params'.padEnd(8)} ${'reviews'.padStart(9)} | ${'fsrs-rs S'.padStart(9)} ${'D'.padStart(9)} ${'ivl≠'.padStart(5)} | ${'ts-fsrs S'.padStart(9)} ${'D'.padStart(9)} ${'R'.padStart(9)} ${'ivl≠'.padStart(5)} | ${'FsrsRsF32 S'.padStart(11)} ${'D'.padStart(9)} ${'ivl≠'.padStart(5)} | ${'TsFsrs S'.padStart(9)} ${'D'.padStart(9)} ${'R'.padStart(9)} ${'ivl≠'.padStart(5)}`,
)
const total = {
  srsRs: emptyStats(),
  srsTs: emptyStats(),
  compatRs: emptyStats(),
  compatTs: emptyStats(),
  peers: emptyStats(),
}
for (const file of files) {
  const { dataset, results } = compare(file)
  for (const { name, stats, tsClipped, fit } of results) {
    console.log(
      `${dataset.slice(0, 33).padEnd(33)} ${name.padEnd(8)} ${String(stats.srsRs.reviews).padStart(9)} | ${cols(stats.srsRs, false)} | ${cols(stats.srsTs, true)} | ${fmtE(stats.compatRs.dS).padStart(11)} ${fmtE(stats.compatRs.dD)} ${String(stats.compatRs.mismatches).padStart(5)} | ${cols(stats.compatTs, true)}`,
    )
    const p = stats.peers
    console.log(
      `${''.padEnd(52)} | peers: ts-fsrs vs fsrs-rs S ${fmtE(p.dS)} D ${fmtE(p.dD)} ivl≠ ${String(p.mismatches).padStart(5)}`,
    )
    if (name === 'fitted' && fit.clipped.length) console.log(`  fitted parameters clipped: ${fit.clipped.join(', ')}`)
    if (tsClipped) console.log('  note: ts-fsrs clipped these parameters further')
    for (const key of Object.keys(total)) {
      for (const k of ['dS', 'dD', 'dR', 'halfDay']) total[key][k] = Math.max(total[key][k], stats[key][k])
      for (const k of ['reviews', 'states', 'intervals', 'mismatches']) total[key][k] += stats[key][k]
      total[key].example ??= stats[key].example
    }
  }
}
const t = total
console.log(
  `\nall datasets: ${t.srsRs.reviews / 2} reviews × 2 parameter sets = ${t.srsRs.reviews} replayed reviews, ${t.srsRs.states} next states, ${t.srsRs.intervals} intervals per comparison`,
)
const line = (label, st, withR) =>
  `${label}: max relative difference S ${st.dS.toExponential(2)}, D ${st.dD.toExponential(2)}${withR ? `, R ${st.dR.toExponential(2)}` : ''}; intervals different: ${st.mismatches}` +
  (st.mismatches ? ` (all with the library's unrounded interval within ${st.halfDay.toExponential(1)} day of a half day; first: ${st.example})` : '')
console.log(line('srs Fsrs6 vs fsrs-rs ', t.srsRs, false))
console.log(line('srs Fsrs6 vs ts-fsrs ', t.srsTs, true))
console.log(line('compat::FsrsRsF32 vs fsrs-rs', t.compatRs, false))
console.log(line('compat::TsFsrs vs ts-fsrs   ', t.compatTs, true))
console.log(line('peers: ts-fsrs vs fsrs-rs  ', t.peers, false))
const statesOk = Math.max(t.srsRs.dS, t.srsRs.dD, t.srsTs.dS, t.srsTs.dD, t.srsTs.dR) <= 1e-4
const compatOk =
  Math.max(t.compatRs.dS, t.compatRs.dD, t.compatTs.dS, t.compatTs.dD, t.compatTs.dR) <= 1e-4 &&
  t.compatRs.mismatches === 0 &&
  t.compatTs.mismatches === 0
console.log(
  statesOk && compatOk
    ? 'PASS: states within 1e-4 relative of both libraries; next intervals equal to both (compat models)'
    : 'FAIL',
)
process.exit(statesOk && compatOk ? 0 : 1)
