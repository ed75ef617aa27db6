// SPDX-License-Identifier: MIT
// Scripted card life cycles through ts-fsrs, the reference of the ctest crosscheck.ts_fsrs_lifecycle
// (tests/tools/ts_fsrs_lifecycle.sh): many cards, each reviewed from new through its learning steps,
// review, lapses and relearning over months, at review times drawn from a seeded generator; every
// review and ts-fsrs's result after it is written as one text line, and for every 7th review the
// four outcomes of repeat() too; some reviews are rolled back and some cards forgotten. Parameter
// sets cover ts-fsrs's options: relearning steps, maximum interval, enable_short_term and fuzz. tests/tools/ts_fsrs_lifecycle.cpp replays the same reviews through
// srs::sched::Scheduler and compares.
//
//   node ts_fsrs_lifecycle.mjs NODE_PREFIX OUT_FILE [CARDS]
//
// NODE_PREFIX: the folder whose node_modules/ holds ts-fsrs (tests/tools/npm_peers.sh DIR).
// Output lines (numbers as JavaScript prints them: shortest round-trip decimal):
//   set K RETENTION RELEARNING MAX_IVL SHORT_TERM FUZZ W0 .. W20
//                                                      a parameter set; RELEARNING: its relearning
//                                                      steps in minutes, comma-separated; MAX_IVL:
//                                                      its maximum interval in days; SHORT_TERM and
//                                                      FUZZ: enable_short_term and enable_fuzz, 0 or 1
//   r K CARD IDX TIME RATING R_BEFORE | DUE STATE STEP REPS LAPSES S D SCHEDULED ELAPSED
//   p K CARD IDX TIME RATING | DUE STATE STEP REPS LAPSES S D SCHEDULED ELAPSED    (repeat(), before the r line)
//   b K CARD IDX | DUE STATE STEP REPS LAPSES S D SCHEDULED ELAPSED    (rollback() of the r line before it,
//                                                                      every 5th review of a card not new)
//   f K CARD IDX TIME RESET | DUE STATE STEP REPS LAPSES S D SCHEDULED ELAPSED   (forget(card, TIME, RESET)
//                                                                      after the r line, RESET 0 or 1)
// R_BEFORE is get_retrievability(card, TIME, false) before the review.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [prefix, outFile, cardsArg] = process.argv.slice(2);
if (!prefix || !outFile) {
  console.error('usage: node ts_fsrs_lifecycle.mjs NODE_PREFIX OUT_FILE [CARDS]');
  process.exit(2);
}
const tsfsrs = await import(pathToFileURL(join(prefix, 'node_modules', 'ts-fsrs', 'dist', 'index.mjs')).href);
const { fsrs, createEmptyCard, Rating, State, default_w, FSRSVersion } = tsfsrs;
const cards = Number(cardsArg ?? 300);

// Mulberry32: a small 32-bit generator, so that the scripted times and ratings are the same on every run.
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Each set: the desired retention, the parameters, the relearning steps (minutes), the maximum
// interval, enable_short_term (default true) and enable_fuzz (default false).
const fitted = [0.4, 1.1, 3.2, 12.0, 6.0, 0.7, 2.5, 0.02, 1.6, 0.2, 0.9, 1.6, 0.08, 0.3, 1.4, 0.5, 2.2, 0.6, 0.15, 0.1,
                0.25];
const sets = [
  { retention: 0.9, w: [...default_w], relearning: [10], maxIvl: 36500 },
  // A fitted-looking vector inside ts-fsrs's clip boxes (so that clipping leaves it as it is).
  { retention: 0.85, w: [0.4, 1.1, 3.2, 12.0, 6.0, 0.7, 2.5, 0.02, 1.6, 0.2, 0.9, 1.6, 0.08, 0.3, 1.4, 0.5, 2.2, 0.6,
                          0.15, 0.1, 0.25], relearning: [10], maxIvl: 36500 },
  // The same with large same-day parameters and two relearning steps: ts-fsrs's clipParameters
  // lowers w17 and w18 to its ceiling for two steps (0.53605455).
  { retention: 0.85, w: [0.4, 1.1, 3.2, 12.0, 6.0, 0.7, 2.5, 0.02, 1.6, 0.2, 0.9, 1.6, 0.08, 0.3, 1.4, 0.5, 2.2, 1.2,
                          0.9, 0.1, 0.25], relearning: [10, 30], maxIvl: 36500 },
  // The defaults under a maximum interval of 30 days: ts-fsrs caps each of Hard, Good and Easy
  // before ordering them, so Good and Easy can reach 31 and 32 days.
  { retention: 0.9, w: [...default_w], relearning: [10], maxIvl: 30 },
  // ts-fsrs's long-term scheduler (enable_short_term: false): no learning steps, every answer
  // schedules days, Again < Hard < Good < Easy for new cards too.
  { retention: 0.9, w: [...default_w], relearning: [10], maxIvl: 36500, shortTerm: false },
  // Fuzz on: ts-fsrs's Alea draw seeded with the review time, reps and D·S.
  { retention: 0.9, w: [...default_w], relearning: [10], maxIvl: 36500, fuzz: true },
  // Everything at once: fitted parameters, two relearning steps, a maximum interval, fuzz.
  { retention: 0.85, w: [...fitted], relearning: [10, 30], maxIvl: 60, fuzz: true },
  // Long-term with fuzz and a maximum interval.
  { retention: 0.8, w: [...fitted], relearning: [10], maxIvl: 45, shortTerm: false, fuzz: true },
];

const lines = [`# ts-fsrs ${FSRSVersion}`];
const MIN = 60 * 1000;
const DAY = 24 * 60 * MIN;
const base = Date.UTC(2024, 0, 15, 0, 0, 0);

function fields(card) {
  return [card.due.getTime(), card.state, card.learning_steps, card.reps, card.lapses, card.stability,
          card.difficulty, card.scheduled_days, card.elapsed_days].join(' ');
}

let lapses = 0, relearningReviews = 0, learningReviews = 0, reviewReviews = 0, forgets = 0;
sets.forEach((set, k) => {
  const shortTerm = set.shortTerm ?? true;
  const fuzz = set.fuzz ?? false;
  lines.push(`set ${k} ${set.retention} ${set.relearning.join(',')} ${set.maxIvl} ${Number(shortTerm)} ${Number(fuzz)} ` +
             `${set.w.join(' ')}`);
  const f = fsrs({ w: set.w, request_retention: set.retention, enable_fuzz: fuzz, enable_short_term: shortTerm,
                   learning_steps: ['1m', '10m'], relearning_steps: set.relearning.map((m) => `${m}m`),
                   maximum_interval: set.maxIvl });
  const rand = mulberry32(20240115 + k);
  for (let c = 0; c < cards; ++c) {
    // A creation time at a random minute of the first 30 days.
    let now = base + Math.floor(rand() * 30 * 24 * 60) * MIN;
    let card = createEmptyCard(new Date(now));
    const end = now + (120 + Math.floor(rand() * 240)) * DAY;
    for (let idx = 0; idx < 60 && now < end; ++idx) {
      // The next review: a random minute from (a little before) the due time to a while after it.
      const due = card.due.getTime();
      if (idx > 0) {
        const short = card.state === State.Learning || card.state === State.Relearning;
        const late = short ? Math.floor(rand() * (rand() < 0.8 ? 90 : 2 * 24 * 60))
                           : Math.floor(rand() * (rand() < 0.7 ? 24 * 60 : 6 * 24 * 60)) - (rand() < 0.15 ? 24 * 60 : 0);
        now = Math.max(now, due + late * MIN);
      }
      const u = rand();
      const rating = u < 0.17 ? Rating.Again : u < 0.32 ? Rating.Hard : u < 0.85 ? Rating.Good : Rating.Easy;
      const at = new Date(now);
      const rBefore = f.get_retrievability(card, at, false);
      if (idx % 7 === 3) {
        const preview = f.repeat(card, at);
        for (const g of [Rating.Again, Rating.Hard, Rating.Good, Rating.Easy]) {
          lines.push(`p ${k} ${c} ${idx} ${now} ${g} | ${fields(preview[g].card)}`);
        }
      }
      if (card.state === State.Learning) ++learningReviews;
      if (card.state === State.Relearning) ++relearningReviews;
      if (card.state === State.Review) { ++reviewReviews; if (rating === Rating.Again) ++lapses; }
      const wasNew = card.state === State.New;
      const result = f.next(card, at, rating);
      card = result.card;
      lines.push(`r ${k} ${c} ${idx} ${now} ${rating} ${rBefore} | ${fields(card)}`);
      if (idx % 5 === 2 && !wasNew) {
        lines.push(`b ${k} ${c} ${idx} | ${fields(f.rollback(card, result.log))}`);
      }
      if (idx % 13 === 9) {  // forget, a random time up to 3 days after the review
        now += Math.floor(rand() * 3 * 24 * 60) * MIN;
        const reset = c % 2;
        card = f.forget(card, new Date(now), reset === 1).card;
        ++forgets;
        lines.push(`f ${k} ${c} ${idx} ${now} ${reset} | ${fields(card)}`);
      }
    }
  }
});
writeFileSync(outFile, lines.join('\n') + '\n');
console.log(`ts-fsrs ${FSRSVersion}: ${sets.length} parameter sets x ${cards} cards; reviews in learning ${learningReviews}, ` +
            `review ${reviewReviews} (lapses ${lapses}), relearning ${relearningReviews}; forgets ${forgets}`);
if (lapses === 0 || relearningReviews === 0 || learningReviews === 0 || forgets === 0) {
  console.error('the scripted life cycles miss a stage (learning, lapse, relearning or forget)');
  process.exit(1);
}
