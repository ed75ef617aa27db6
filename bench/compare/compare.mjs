// SPDX-License-Identifier: MIT
// The node half of bench/compare/compare.sh (run that script, not this file).
// For each dataset: FSRS-6 training with fsrs-rs (npm @open-spaced-repetition/binding,
// computeParameters, in this process) and with srs (bench/compare/srs_compare train,
// which times its own training), alternating A/B for --reps repetitions; then,
// with --cv, fsrs-rs's in-process 5-fold time-series evaluation
// (evaluateWithTimeSeriesSplits) against the whole `srs-bench --model FSRS-6
// --short [--fast]` process (fork to exit, timed by `srs_compare run`). Prints
// medians, the time ratios and both LogLoss values.
//
//   node compare.mjs --prefix DIR --tool SRS_COMPARE [--bench SRS_BENCH] [--reps N] [--cv] FILE...
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'

process.env.FSRS_NO_OUTLIER ??= '1' // as the benchmark runs fsrs-rs

const args = process.argv.slice(2)
let prefix = null
let tool = null
let bench = null
let reps = 5
let cv = false
const files = []
for (let k = 0; k < args.length; ++k) {
  if (args[k] === '--prefix') prefix = args[++k]
  else if (args[k] === '--tool') tool = args[++k]
  else if (args[k] === '--bench') bench = args[++k]
  else if (args[k] === '--reps') reps = Number(args[++k])
  else if (args[k] === '--cv') cv = true
  else files.push(args[k])
}
if (!prefix || !tool || files.length === 0 || !(reps >= 1) || (cv && !bench)) {
  console.error('usage: node compare.mjs --prefix DIR --tool SRS_COMPARE [--bench SRS_BENCH --cv] [--reps N] FILE...')
  process.exit(2)
}

const require = createRequire(path.join(path.resolve(prefix), 'node_modules', 'index.js'))
const binding = require('@open-spaced-repetition/binding')
const version = JSON.parse(
  readFileSync(path.join(prefix, 'node_modules', '@open-spaced-repetition', 'binding', 'package.json'), 'utf8'),
).version

const run = (exe, a) => execFileSync(exe, a, { encoding: 'utf8', maxBuffer: 2 ** 31 })
const tool_json = (...a) => JSON.parse(run(tool, a))
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const ms = (s) => `${(s * 1000).toFixed(1)} ms`
const options = {
  enableShortTerm: true,
  numRelearningSteps: 1,
  trainingConfig: { numEpochs: 5, batchSize: 512, seed: 2023, maxSeqLen: 64, learningRate: 0.04, gamma: 1 },
  // The binding polls its training thread every `timeout` ms (default 500): without
  // this, every call takes at least half a second of wall time, whatever its size.
  timeout: 1,
}

async function timed(f) {
  const c0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  const value = await f()
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  const c = process.cpuUsage(c0)
  return { value, seconds, cpu: (c.user + c.system) / 1e6 }
}

console.log(`fsrs-rs: @open-spaced-repetition/binding ${version}, computeParameters (FSRS_NO_OUTLIER=${process.env.FSRS_NO_OUTLIER})`)
console.log(`srs: ${tool} (FSRS-6, --fast card-window batching and reference batching)`)
console.log(`${reps} alternating repetitions per dataset; medians; machine: ${os.cpus().length} × ${os.cpus()[0].model}\n`)

const rows = []
for (const file of files) {
  const data = tool_json('items', file)
  const items = data.items.map(
    (reviews) => new binding.FSRSBindingItem(reviews.map(([t, r]) => new binding.FSRSBindingReview(r, t))),
  )
  data.items = null
  const theirs = []
  const fast = []
  const ref = []
  for (let k = 0; k < reps; ++k) {
    // A, B, B', alternating: no side gets a systematically warmer machine.
    theirs.push(await timed(() => binding.computeParameters(items, options)))
    fast.push(tool_json('train', file, '--batching', 'fast'))
    ref.push(tool_json('train', file, '--batching', 'reference'))
  }
  const theirLoss = tool_json('eval', file, theirs[0].value.join(',')).logloss
  const r = {
    user: data.user,
    items: items.length,
    rs: median(theirs.map((x) => x.seconds)),
    rsCpu: median(theirs.map((x) => x.cpu)),
    fast: median(fast.map((x) => x.seconds)),
    fastCpu: median(fast.map((x) => x.cpu_seconds)),
    ref: median(ref.map((x) => x.seconds)),
    rsLoss: theirLoss,
    fastLoss: fast[0].logloss,
    refLoss: ref[0].logloss,
  }
  if (cv) {
    const out = mkdtempSync(path.join(os.tmpdir(), 'srs-compare-'))
    // The srs-bench process's wall time from fork to exit, timed by srs_compare
    // run (a small process): node's own spawn of its large heap is not counted.
    const srsRun = (flags) =>
      tool_json('run', '--', bench, '--data', file, '--model', 'FSRS-6', '--short', ...flags, '--quiet', '--overwrite',
        '--out', out).seconds
    const cvRs = []
    const cvFast = []
    const cvRef = []
    let ev = null
    for (let k = 0; k < reps; ++k) {
      const t = await timed(() => binding.evaluateWithTimeSeriesSplits(items, options))
      ev = t.value
      cvRs.push(t.seconds)
      cvFast.push(srsRun(['--fast']))
      cvRef.push(srsRun([]))
    }
    rmSync(out, { recursive: true, force: true })
    Object.assign(r, { cvRs: median(cvRs), cvFast: median(cvFast), cvRef: median(cvRef), cvRsLoss: ev.logLoss })
  }
  rows.push(r)
  console.log(
    `${r.user}: ${r.items} items; fsrs-rs ${ms(r.rs)} (CPU ${ms(r.rsCpu)}), srs --fast ${ms(r.fast)}, ` +
      `srs reference ${ms(r.ref)}; LogLoss ${r.rsLoss.toFixed(4)} / ${r.fastLoss.toFixed(4)} / ${r.refLoss.toFixed(4)}` +
      (cv ? `; 5-fold: fsrs-rs ${ms(r.cvRs)}, srs-bench --fast ${ms(r.cvFast)}, srs-bench ${ms(r.cvRef)}` : ''),
  )
}

const pad = (s, n) => String(s).padStart(n)
console.log('\nFSRS-6 training on all items (in-sample LogLoss, srs\'s FSRS-6 math for both vectors):\n')
console.log('| dataset | items | fsrs-rs | srs --fast | ratio | srs reference | ratio | CPU fsrs-rs | CPU srs --fast | CPU ratio | LogLoss fsrs-rs | --fast | reference |')
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const r of rows) {
  console.log(
    `| ${r.user} | ${r.items} | ${ms(r.rs)} | ${ms(r.fast)} | ${(r.rs / r.fast).toFixed(1)}× | ${ms(r.ref)} | ` +
      `${(r.rs / r.ref).toFixed(1)}× | ${ms(r.rsCpu)} | ${ms(r.fastCpu)} | ${(r.rsCpu / r.fastCpu).toFixed(1)}× | ` +
      `${r.rsLoss.toFixed(4)} | ${r.fastLoss.toFixed(4)} | ${r.refLoss.toFixed(4)} |`,
  )
}
console.log('(wall: medians of the calls; CPU: of the process, user + system, during the call)')
if (cv) {
  console.log('\n5-fold time-series evaluation (fsrs-rs evaluateWithTimeSeriesSplits in-process; srs: the whole srs-bench process from fork to exit, default threads (folds in parallel)):\n')
  console.log('| dataset | fsrs-rs | srs-bench --fast | ratio | srs-bench (reference batching) | ratio |')
  console.log('|---|---:|---:|---:|---:|---:|')
  for (const r of rows) {
    console.log(
      `| ${r.user} | ${ms(r.cvRs)} | ${ms(r.cvFast)} | ${(r.cvRs / r.cvFast).toFixed(1)}× | ${ms(r.cvRef)} | ${(r.cvRs / r.cvRef).toFixed(1)}× |`,
    )
  }
}
const worst = Math.min(...rows.map((r) => r.rs / r.fast))
const lossOk = rows.every((r) => r.fastLoss <= r.rsLoss + 5e-4)
console.log(`\nsmallest fsrs-rs / srs --fast time ratio: ${worst.toFixed(2)}×; srs --fast LogLoss ≤ fsrs-rs's (+0.0005) everywhere: ${lossOk}`)
