// SPDX-License-Identifier: MIT
// Cross-checks of srs::sched against fsrs-rs 6.5.0 through its Node binding
// (@open-spaced-repetition/binding 0.5.0, installed by tests/tools/npm_peers.sh):
//
//   node tests/crosscheck/fsrs_rs.mjs --prefix DIR --driver FSRS_RS_DRIVER (sm2|interval|evaluate)
//
// The driver (tests/crosscheck/fsrs_rs_driver.cpp) computes the same things
// with srs's compat::FsrsRsF32 ("rs") and models::Fsrs6 ("f6"). Two parameter
// sets: fsrs-rs's defaults and a non-default vector inside fsrs-rs's bounds.
//  sm2       memoryStateFromSM2 over eases 1.3..5, intervals 1..36500 days,
//            SM-2 retentions 0.7..0.99: FsrsRsF32 bit for bit (the binding
//            returns f32 values), Fsrs6 within 1e-5 relative; and the state
//            after three reviews continuing from it (memory_state with a
//            starting state, the binding chaining nextStates): FsrsRsF32 bit for bit.
//  interval  nextStates from each converted state, after 0, half the interval
//            and the interval, at desired retentions 0.7..0.99: FsrsRsF32's
//            states bit for bit and intervals equal (the binding's unrounded
//            f32 interval rounded as fsrs-rs's simulator, clamp(round(x), 1,
//            36500)); Fsrs6's states within 1e-5 relative when the input
//            stability is at most 36500 (fsrs-rs clamps a larger one first; Fsrs6
//            does not, so those are counted and listed apart) and each of its
//            interval differences explained by f32 rounding: the binding's
//            unrounded interval within 1e-5 relative of a half day.
//  evaluate  evaluate(items) with fsrs-rs's recency weights on the items of 60
//            generated cards (see below for the binding's own filter and order):
//            log loss and RMSE(bins) within 1e-5 relative (FsrsRsF32) and 1e-4
//            (Fsrs6): fsrs-rs sums in f32.
// Exit 0 when every comparison holds; 1 with the failing inputs named.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'

const args = process.argv.slice(2)
let prefix = null
let driver = null
let mode = null
for (let k = 0; k < args.length; ++k) {
  if (args[k] === '--prefix') prefix = args[++k]
  else if (args[k] === '--driver') driver = args[++k]
  else mode = args[k]
}
if (!prefix || !driver || !['sm2', 'interval', 'evaluate'].includes(mode)) {
  console.error('usage: node fsrs_rs.mjs --prefix DIR --driver FSRS_RS_DRIVER (sm2|interval|evaluate)')
  process.exit(2)
}
const require = createRequire(path.join(path.resolve(prefix), 'node_modules', 'index.js'))
const { FSRSBinding, FSRSBindingItem, FSRSBindingReview, BindingMemoryState } = require('@open-spaced-repetition/binding')

const DEFAULTS = [0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835,
  0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542]
const CUSTOM = [0.4, 1.1, 3.2, 12.5, 5.8, 1.1, 2.4, 0.02, 1.6, 0.21, 1.05, 1.7, 0.09, 0.31, 1.3, 0.45, 2.2,
  0.3, 0.25, 0.12, 0.35]
const PARAMS = [DEFAULTS, CUSTOM]
const EASES = [1.3, 1.7, 2.0, 2.5, 3.1, 4.0, 5.0]
const INTERVALS = [1, 2, 3, 7, 10, 15, 30, 45, 100, 365, 1000, 3650, 36500]
const SM2_RETENTIONS = [0.7, 0.8, 0.85, 0.9, 0.95, 0.99]
const DESIRED = [0.7, 0.8, 0.9, 0.95, 0.99]
const MAX_INTERVAL = 36500

const rsRound = (x) => Math.min(Math.max(Math.round(x), 1), MAX_INTERVAL)
const rel = (a, b) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-300)
const fromHalf = (x) => Math.abs(x - Math.floor(x) - 0.5)
const fsrsOf = PARAMS.map((w) => new FSRSBinding(w))

// Runs the driver on the command lines; returns its answer lines (split in words).
function runDriver(lines) {
  const head = PARAMS.map((w, p) => `params ${p} ${w.join(' ')}`)
  const res = spawnSync(driver, [], { input: [...head, ...lines].join('\n') + '\n', maxBuffer: 1 << 28 })
  if (res.status !== 0) {
    console.error(`driver failed (status ${res.status}): ${res.stderr}`)
    process.exit(1)
  }
  const out = res.stdout.toString().trimEnd().split('\n').map((l) => l.trim().split(/ +/))
  return out.slice(head.length)
}

const failures = []
function fail(msg) {
  if (failures.length < 40) console.error('FAIL ' + msg)
  failures.push(msg)
}

// The grid of SM-2 conversions, with the binding's states.
const cases = []
for (let p = 0; p < PARAMS.length; ++p)
  for (const ease of EASES)
    for (const interval of INTERVALS)
      for (const r of SM2_RETENTIONS) {
        const st = fsrsOf[p].memoryStateFromSM2(ease, interval, r)
        cases.push({ p, ease, interval, r, s: st.stability, d: st.difficulty })
      }
const name = (c) => `params ${c.p === 0 ? 'default' : 'custom'}, ease ${c.ease}, interval ${c.interval}, sm2_retention ${c.r}`

if (mode === 'sm2') {
  const out = runDriver(cases.map((c) => `sm2 ${c.p} ${c.ease} ${c.interval} ${c.r}`))
  let worstF6 = 0
  cases.forEach((c, k) => {
    const o = out[k]
    if (o[0] !== 'rs') return fail(`${name(c)}: driver: ${o.join(' ')}`)
    const [rsS, rsD, f6S, f6D] = [o[1], o[2], o[4], o[5]].map(Number)
    if (rsS !== c.s || rsD !== c.d) fail(`${name(c)}: FsrsRsF32 (${rsS}, ${rsD}) != fsrs-rs (${c.s}, ${c.d})`)
    const e = Math.max(rel(f6S, c.s), rel(f6D, c.d))
    worstF6 = Math.max(worstF6, e)
    if (e > 1e-5) fail(`${name(c)}: Fsrs6 (${f6S}, ${f6D}) vs fsrs-rs (${c.s}, ${c.d}): ${e.toExponential(2)} relative`)
  })
  // Three reviews continuing from the converted state: Good after the SM-2 interval,
  // Again 3 days later, Good the same day (fsrs-rs: memory_state(item, Some(state))).
  const chains = cases.map((c) => [[c.interval, 3], [3, 1], [0, 3]])
  const chainOut = runDriver(cases.map((c, k) => `chain ${c.p} ${c.s} ${c.d} ${chains[k].flat().join(' ')}`))
  cases.forEach((c, k) => {
    let st = new BindingMemoryState(c.s, c.d)
    for (const [t, g] of chains[k]) st = fsrsOf[c.p].nextStates(st, 0.9, t)[['again', 'hard', 'good', 'easy'][g - 1]].memory
    const o = chainOut[k]
    if (o[0] !== 'rs') return fail(`${name(c)} chain: driver: ${o.join(' ')}`)
    if (Number(o[1]) !== st.stability || Number(o[2]) !== st.difficulty)
      fail(`${name(c)}: memory_state from the starting state, FsrsRsF32 (${o[1]}, ${o[2]}) != fsrs-rs (${st.stability}, ${st.difficulty})`)
  })
  console.log(`sm2: ${cases.length} conversions and ${cases.length} continued histories; FsrsRsF32 bit for bit: ` +
    `${failures.length === 0 ? 'yes' : 'no'}; Fsrs6's largest relative difference ${worstF6.toExponential(2)}`)
} else if (mode === 'interval') {
  const queries = []
  for (const c of cases)
    for (const days of [0, Math.round(c.interval / 2), c.interval])
      for (const dr of DESIRED) queries.push({ c, days, dr })
  const out = runDriver(queries.map((q) => `next ${q.c.p} ${q.c.s} ${q.c.d} ${q.days} ${q.dr}`))
  let compared = 0, f6Diff = 0, f6States = 0, worstF6 = 0, clampedInputs = 0
  const examples = []
  queries.forEach((q, k) => {
    const o = out[k]
    const where = `${name(q.c)}, state (${q.c.s}, ${q.c.d}), ${q.days} days, desired retention ${q.dr}`
    if (o[0] !== 'rs' || o[13] !== 'f6') return fail(`${where}: driver: ${o.join(' ')}`)
    const lib = fsrsOf[q.c.p].nextStates(new BindingMemoryState(q.c.s, q.c.d), q.dr, q.days)
    const big = q.c.s > MAX_INTERVAL
    if (big) ++clampedInputs
    ;['again', 'hard', 'good', 'easy'].forEach((key, g) => {
      const it = lib[key]
      const want = rsRound(it.interval)
      const [rS, rD, rI] = [o[1 + 3 * g], o[2 + 3 * g], o[3 + 3 * g]].map(Number)
      const [fS, fD, fI] = [o[14 + 3 * g], o[15 + 3 * g], o[16 + 3 * g]].map(Number)
      ++compared
      if (rS !== it.memory.stability || rD !== it.memory.difficulty || rI !== want)
        fail(`${where}, ${key}: FsrsRsF32 (${rS}, ${rD}, ${rI}) != fsrs-rs (${it.memory.stability}, ${it.memory.difficulty}, ${want})`)
      if (big) return
      ++f6States
      const e = Math.max(rel(fS, it.memory.stability), rel(fD, it.memory.difficulty))
      worstF6 = Math.max(worstF6, e)
      if (e > 1e-5) fail(`${where}, ${key}: Fsrs6 state (${fS}, ${fD}) vs fsrs-rs (${it.memory.stability}, ${it.memory.difficulty})`)
      if (fI !== want) {
        ++f6Diff
        if (examples.length < 5) examples.push(`${where}, ${key}: Fsrs6 ${fI}, fsrs-rs ${want} (unrounded ${it.interval})`)
        if (fromHalf(it.interval) > 1e-5 * it.interval)
          fail(`${where}, ${key}: Fsrs6 interval ${fI} != fsrs-rs ${want}, unrounded ${it.interval} is not at a half day`)
      }
    })
  })
  console.log(`interval: ${compared} next states; FsrsRsF32 states and intervals equal: ${failures.length === 0 ? 'yes' : 'no'}; ` +
    `Fsrs6 on the ${f6States} with an input stability <= 36500: largest relative state difference ` +
    `${worstF6.toExponential(2)}, ${f6Diff} interval(s) differ, each at a half day in f32; ` +
    `${clampedInputs} queries had an input stability > 36500 (fsrs-rs clamps it first; not compared for Fsrs6)`)
  for (const e of examples) console.log('  ' + e)
} else {
  // 60 cards, 3..20 reviews each, from a fixed linear congruential sequence.
  // The binding's evaluate runs fsrs-rs's outlier filter and puts the items
  // whose current review is the card's first long-term one first (its
  // prepare_items) before FSRS::evaluate: the cards come in two groups of 30
  // with the same first rating and first interval (a group of 20 or more is
  // never an outlier), so nothing is filtered, and the items are given to srs
  // in the binding's order.
  let seed = 12345
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const all = []
  for (let card = 0; card < 60; ++card) {
    const reviews = card < 30 ? [[0, 1], [1, 3]] : [[0, 3], [2, 3]]
    const n = 3 + Math.floor(next() * 18)
    for (let k = 2; k < n; ++k) {
      const t = next() < 0.1 ? 0 : 1 + Math.floor(next() * 30 * k)
      const u = next()
      reviews.push([t, u < 0.15 ? 1 : u < 0.25 ? 2 : u < 0.9 ? 3 : 4])
    }
    // Every review after an interval of at least a day is an item (a same-day one
    // would have p = 1, which fsrs-rs rejects when it was an Again).
    for (let k = 1; k < reviews.length; ++k) if (reviews[k][0] > 0) all.push(reviews.slice(0, k + 1))
  }
  const longTerm = (it) => it.slice(1).filter(([t]) => t > 0).length
  const items = [...all.filter((it) => longTerm(it) === 1), ...all.filter((it) => longTerm(it) !== 1)]
  const text = items.map((it) => it.map(([t, g]) => `${t},${g}`).join(';')).join('|')
  const out = runDriver(PARAMS.map((w, p) => `eval ${p} 1 ${text}`))
  const binItems = all.map((it) => new FSRSBindingItem(it.map(([t, g]) => new FSRSBindingReview(g, t))))
  PARAMS.forEach((w, p) => {
    const lib = fsrsOf[p].evaluate(binItems)
    const o = out[p]
    const where = `evaluate, params ${p === 0 ? 'default' : 'custom'}, ${items.length} items`
    if (o[0] !== 'rs') return fail(`${where}: driver: ${o.join(' ')}`)
    const [rL, rR, fL, fR] = [o[1], o[2], o[4], o[5]].map(Number)
    const eRs = Math.max(rel(rL, lib.logLoss), rel(rR, lib.rmseBins))
    const eF6 = Math.max(rel(fL, lib.logLoss), rel(fR, lib.rmseBins))
    console.log(`${where}: fsrs-rs log loss ${lib.logLoss}, RMSE(bins) ${lib.rmseBins}; FsrsRsF32 ${rL}, ${rR} ` +
      `(${eRs.toExponential(2)} relative); Fsrs6 ${fL}, ${fR} (${eF6.toExponential(2)})`)
    if (eRs > 1e-5) fail(`${where}: FsrsRsF32 differs from fsrs-rs by ${eRs.toExponential(2)} relative`)
    if (eF6 > 1e-4) fail(`${where}: Fsrs6 differs from fsrs-rs by ${eF6.toExponential(2)} relative`)
  })
}
if (failures.length > 0) {
  console.error(`${failures.length} comparison(s) failed`)
  process.exit(1)
}
console.log('PASS')
