// SPDX-License-Identifier: MIT
// The node half of bench/fsrs_rs_crosscheck.sh (run that script, not this
// file): trains the real fsrs-rs, through the npm package
// @open-spaced-repetition/binding, on the same items as srs's FSRS-rs, and
// prints both parameter vectors and both test LogLoss values side by side.
//
//   node fsrs_rs_crosscheck.mjs --prefix DIR --tool FSRS_RS_ITEMS [--seeds 2023,1,2] FILE...
//
// --prefix: the npm prefix the binding was installed into; --tool: the built
// bench/fsrs_rs_items program (it builds the items, trains ours and computes
// every LogLoss with srs's FSRS-6 math on the last fold's test rows).
//
// The binding exposes fsrs-rs's computeParameters(), not benchmark(); it runs
// with FSRS_NO_OUTLIER=1 (as the benchmark sets it). Our side therefore reports
// two vectors: "ours cp" assembles FsrsRs's pieces with compute_parameters()'s
// rules (the like-for-like comparison), "ours bench" is FsrsRs::train, the
// FSRS-rs row (benchmark() rules). Both sides use seed 2023 first; further
// seeds show how much the batch order alone moves the result (fsrs-rs shuffles
// with Rust's StdRng, srs with torch_randperm: orders never coincide). Last, a
// run of both with a single batch (batch size 2^20), where the order cannot
// differ: "1-batch max|Δw|" is then a direct check of the training arithmetic.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

process.env.FSRS_NO_OUTLIER ??= '1'

const args = process.argv.slice(2)
let prefix = null
let tool = null
let seeds = [2023, 1, 2, 3, 4]
const files = []
for (let k = 0; k < args.length; ++k) {
  if (args[k] === '--prefix') prefix = args[++k]
  else if (args[k] === '--tool') tool = args[++k]
  else if (args[k] === '--seeds') seeds = args[++k].split(',').map(Number)
  else files.push(args[k])
}
if (!prefix || !tool || files.length === 0) {
  console.error('usage: node fsrs_rs_crosscheck.mjs --prefix DIR --tool FSRS_RS_ITEMS [--seeds 2023,1] FILE...')
  process.exit(2)
}

const require = createRequire(path.join(path.resolve(prefix), 'node_modules', 'index.js'))
const binding = require('@open-spaced-repetition/binding')
const bindingVersion = JSON.parse(
  readFileSync(path.join(prefix, 'node_modules', '@open-spaced-repetition', 'binding', 'package.json'), 'utf8'),
).version

const runTool = (...a) => JSON.parse(execFileSync(tool, a, { encoding: 'utf8', maxBuffer: 1 << 30 }))
const round4 = (x) => Math.round(x * 1e4) / 1e4
const fmt = (x, w = 9, d = 4) => (Number.isFinite(x) ? x.toFixed(d) : String(x)).padStart(w)

async function fsrsRs(items, seed, batchSize = 512) {
  return binding.computeParameters(items, {
    enableShortTerm: true,
    numRelearningSteps: 1,
    trainingConfig: { numEpochs: 5, batchSize, seed, maxSeqLen: 256, learningRate: 0.04, gamma: 1 },
  })
}
const ONE_BATCH = 1 << 20

const summary = []
console.log(`fsrs-rs: @open-spaced-repetition/binding ${bindingVersion} (computeParameters, FSRS_NO_OUTLIER=${process.env.FSRS_NO_OUTLIER})`)
console.log(`seeds: ${seeds.join(', ')} (the columns show seed ${seeds[0]})`)
for (const file of files) {
  const data = runTool('items', file)
  const items = data.items.map(
    (reviews) => new binding.FSRSBindingItem(reviews.map(([t, r]) => new binding.FSRSBindingReview(r, t))),
  )
  const theirs = []
  for (const seed of seeds) {
    const params = await fsrsRs(items, seed)
    const { logloss } = runTool('eval', file, params.join(','))
    theirs.push({ seed, params, logloss })
  }
  const ours = runTool('ours', file, ...seeds.map(String))
  const theirsOne = await fsrsRs(items, seeds[0], ONE_BATCH)
  const oursOne = runTool('ours', file, '--batch', String(ONE_BATCH), String(seeds[0])).compute_parameters[0]
  let oneDiff = 0
  for (let k = 0; k < 21; ++k) oneDiff = Math.max(oneDiff, Math.abs(round4(theirsOne[k]) - oursOne.params[k]))
  const oneLoss = runTool('eval', file, theirsOne.join(',')).logloss

  console.log(`\n== ${data.user}: last fold, ${data.train_rows} training rows (items), ${data.test_rows} test rows`)
  console.log(`${'param'.padEnd(7)}${'fsrs-rs'.padStart(10)}${'ours cp'.padStart(10)}${'ours bench'.padStart(11)}`)
  const t0 = theirs[0].params
  const c0 = ours.compute_parameters[0].params
  const b0 = ours.benchmark[0].params
  let maxDiff = 0
  for (let k = 0; k < 21; ++k) {
    maxDiff = Math.max(maxDiff, Math.abs(round4(t0[k]) - c0[k]))
    console.log(`${('w' + k).padEnd(7)}${fmt(round4(t0[k]), 10)}${fmt(c0[k], 10)}${fmt(b0[k], 11)}`)
  }
  const range = (xs) => `${Math.min(...xs).toFixed(4)}..${Math.max(...xs).toFixed(4)}`
  const ll = (xs) => xs.map((x) => x.logloss)
  console.log(`${'LogLoss'.padEnd(7)}${fmt(theirs[0].logloss, 10)}${fmt(ours.compute_parameters[0].logloss, 10)}${fmt(ours.benchmark[0].logloss, 11)}`)
  console.log(`LogLoss over the seeds: fsrs-rs ${range(ll(theirs))}, ours cp ${range(ll(ours.compute_parameters))}, ours bench ${range(ll(ours.benchmark))}`)
  console.log(`max |Δw| fsrs-rs vs ours cp (seed ${seeds[0]}): ${maxDiff.toFixed(4)}`)
  console.log(
    `one batch: max |Δw| fsrs-rs vs ours cp ${oneDiff.toFixed(4)}, LogLoss ${oneLoss.toFixed(4)} vs ${oursOne.logloss.toFixed(4)}`,
  )
  summary.push({
    oneDiff,
    user: data.user,
    theirs: theirs[0].logloss,
    cp: ours.compute_parameters[0].logloss,
    bench: ours.benchmark[0].logloss,
    maxDiff,
  })
}

if (summary.length > 1) {
  console.log(
    `\n${'dataset'.padEnd(36)}${'fsrs-rs'.padStart(9)}${'ours cp'.padStart(9)}${'ours bench'.padStart(11)}${'max|Δw|'.padStart(9)}${'1-batch max|Δw|'.padStart(17)}`,
  )
  for (const s of summary) {
    console.log(`${s.user.padEnd(36)}${fmt(s.theirs)}${fmt(s.cp)}${fmt(s.bench, 11)}${fmt(s.maxDiff)}${fmt(s.oneDiff, 17)}`)
  }
  const mean = (f) => summary.reduce((a, s) => a + f(s), 0) / summary.length
  console.log(`${'mean |ΔLogLoss| fsrs-rs vs ours cp'.padEnd(36)}${fmt(mean((s) => Math.abs(s.theirs - s.cp)), 9, 5)}`)
  console.log(`${'mean |ΔLogLoss| fsrs-rs vs ours bench'.padEnd(36)}${fmt(mean((s) => Math.abs(s.theirs - s.bench)), 9, 5)}`)
}
