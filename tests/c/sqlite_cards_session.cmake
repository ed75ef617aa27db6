# SPDX-License-Identifier: MIT
# cmake -P script (ctest example.sqlite_cards): a scripted session of examples/sqlite_cards.c
# against a fresh database: add three cards, list them due, answer them through the learning steps
# (and refuse a bad card, rating and time), undo an answer, list the due cards later, train on too
# little data (the defaults), import a generated log of 150 cards (a bad file changes nothing),
# train (trained; stored; every card rebuilt from its log), and check what the database holds
# through the example and, when found, the sqlite3 shell.
# Expected values by hand (FSRS-6 defaults w, the scheduler's rules in docs/scheduler.md, steps
# 1 and 10 minutes): a new card answered Good goes to learning step 1, due in 10 minutes, with
# S = w2 = 2.3065 and D = D0(3) = w4 - exp(2 w5) + 1 = 2.1181; Again: step 0, due in 1 minute,
# S = w0 = 0.2120, D = D0(1) = w4 = 6.4133. Good again the same day: the same-day stability
# factor exp(w17 (G - 3 + w18)) S^-w19 is 0.9945 for S = 2.3065, floored at 1 for Good (S stays
# 2.3065; the card graduates with round(2.3065) = 2 days), and 1.1636 for S = 0.212 (S = 0.2467,
# the card moves to step 1, due in 10 minutes); D = w7 D0(4) + (1 - w7) D: 2.1112 and 6.4021.
# Run: cmake -DAPP=<sqlite_cards> -DWORK_DIR=<dir> [-DSQLITE3=<sqlite3 shell>] -P sqlite_cards_session.cmake
cmake_minimum_required(VERSION 3.21)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(db "${WORK_DIR}/cards.sqlite")

# run(<expected exit code> <regex the output must match> <arguments...>): the output in `out`.
function(run rc regex)
  execute_process(COMMAND "${APP}" "${db}" ${ARGN} RESULT_VARIABLE got OUTPUT_VARIABLE o ERROR_VARIABLE e)
  set(all "${o}${e}")
  if(NOT got STREQUAL "${rc}")
    message(FATAL_ERROR "sqlite_cards ${ARGN}: exit ${got}, expected ${rc}:\n${all}")
  endif()
  if(NOT all MATCHES "${regex}")
    message(FATAL_ERROR "sqlite_cards ${ARGN}: output does not match '${regex}':\n${all}")
  endif()
  set(out "${all}" PARENT_SCOPE)
endfunction()

set(t0 1704110400000)  # 2024-01-01 12:00 UTC
set(day 86400000)
run(0 "^card 1 added\n$" add "der Hund" "the dog")
run(0 "^card 2 added\n$" add "die Katze" "the cat")
run(0 "^card 3 added\n$" add "das Haus" "the house")
run(0 "due: card 1 \\(new\\): der Hund\ndue: card 2 \\(new\\): die Katze\ndue: card 3 \\(new\\): das Haus\n3 card\\(s\\) due" due ${t0})
run(0 "^card 1: learning \\(step 1\\), stability 2.3065, difficulty 2.1181, due 2024-01-01 12:10\n$" review 1 ${t0} 3)
run(0 "^card 2: learning \\(step 0\\), stability 0.2120, difficulty 6.4133, due 2024-01-01 12:01\n$" review 2 ${t0} 1)
math(EXPR t10 "${t0} + 600000")
run(0 "^card 1: review, stability 2.3065, difficulty 2.1112, next review in 2 day\\(s\\), due 2024-01-03 12:10\n$" review 1 ${t10} 3)
set(card1_stability "2.3065")
run(0 "^card 2: learning \\(step 1\\), stability 0.2467, difficulty 6.4021, due 2024-01-01 12:20\n$" review 2 ${t10} 3)
# Refused: no such card; a rating outside 1..4 and a time before the last review (by the C API,
# its message printed); a time that is not a number.
run(1 "no card 9" review 9 ${t10} 3)
run(1 "review: rating must be 1 \\(Again\\), 2 \\(Hard\\), 3 \\(Good\\) or 4 \\(Easy\\), got 7 \\(invalid argument\\)" review 1 ${t10} 7)
run(1 "card 1: review time ${t0} ms is before its last review \\(${t10} ms\\)" review 1 ${t0} 3)
run(1 "TIME_MS: expected a whole number" review 1 soon 3)
# Undo (srs_scheduler_rollback): card 2 back to step 0 exactly; answered Good again 20 minutes in.
run(0 "^undone: card 2: learning \\(step 0\\), stability 0.2120, difficulty 6.4133, due 2024-01-01 12:01\n$" undo 2)
run(1 "card 3 has no review to undo" undo 3)
math(EXPR t20 "${t0} + 1200000")
run(0 "^card 2: learning \\(step 1\\), stability 0.2467, difficulty 6.4021, due 2024-01-01 12:30\n$" review 2 ${t20} 3)
# On 2024-01-02 at 05:00 UTC: card 3 is new, card 2 due since 12:30 the day before, card 1 not due.
math(EXPR t "${t0} + ${day} - 7 * 3600000")
run(0 "^due: card 3 \\(new\\): das Haus\ndue: card 2 \\(learning, since 2024-01-01 12:30\\): die Katze\n2 card\\(s\\) due\n$" due ${t})
run(0 "trained on 4 reviews \\(0 items\\): defaults \\(too few reviews\\)\nparameters: 0.2120 1.2931 2.3065 8.2956" train)

# A generated log: 150 cards, intervals growing on a pass (Hard x1.2, Good x2.5, Easy x3.5), back
# to 1 day on Again; ratings from a linear congruential generator (Again 15%, Hard 10%, Easy 5%).
set(x 12345)
set(lines "")
set(n 0)
foreach(c RANGE 100 249)
  math(EXPR d "(${c} - 100) / 3")
  set(ivl 1)
  while(d LESS 240)
    math(EXPR x "(${x} * 1103515245 + 12345) % 2147483648")
    math(EXPR u "(${x} / 65536) % 100")
    if(u LESS 15)
      set(g 1)
      set(ivl 1)
    elseif(u LESS 25)
      set(g 2)
      math(EXPR ivl "${ivl} * 6 / 5 + 1")
    elseif(u LESS 95)
      set(g 3)
      math(EXPR ivl "${ivl} * 5 / 2")
    else()
      set(g 4)
      math(EXPR ivl "${ivl} * 7 / 2")
    endif()
    math(EXPR time "${t0} + ${d} * ${day} + ${c} * 1000")
    string(APPEND lines "${c},${time},${g}\n")
    math(EXPR n "${n} + 1")
    math(EXPR d "${d} + ${ivl}")
  endwhile()
endforeach()
file(WRITE "${WORK_DIR}/log.csv" "${lines}")
file(WRITE "${WORK_DIR}/bad.csv" "500,1704110400000,3\n500,1704196800000,3\n500,1704283200000,9\n")
run(1 "bad.csv:3: expected card_id,time_ms,rating" import "${WORK_DIR}/bad.csv")
run(0 "^imported ${n} reviews\n$" import "${WORK_DIR}/log.csv")
math(EXPR total "${n} + 4")
run(0 "trained on ${total} reviews \\([0-9]+ items\\): trained\nparameters:( [0-9.]+)+\n$" train)
if(out MATCHES "parameters: 0.2120 1.2931 2.3065 8.2956 6.4133")
  message(FATAL_ERROR "training kept the default parameters:\n${out}")
endif()
string(REGEX MATCH "parameters:[ 0-9.]+" printed_params "${out}")
run(0 "card 1: review, stability [0-9.]+, difficulty [0-9.]+, next review in [0-9]+ day\\(s\\), due 2024-01-[0-9]+ 12:10; der Hund / the dog, 2 review\\(s\\), 0 lapse\\(s\\)\ncard 2: [a-z]+.*; die Katze / the cat, 2 review\\(s\\)" cards)
# Rebuilt with the trained parameters.
if(out MATCHES "card 1: review, stability ${card1_stability},")
  message(FATAL_ERROR "card 1 kept its stability ${card1_stability} after training:\n${out}")
endif()
if(NOT out MATCHES "card 249: [a-z]+[^\n]*stability [^\n]*; imported 249 / , [0-9]+ review\\(s\\)" OR out MATCHES "card 500")
  message(FATAL_ERROR "the imported cards are not as imported:\n${out}")
endif()

# The database itself, through SQLite's shell.
if(SQLITE3)
  function(query sql expected)
    execute_process(COMMAND "${SQLITE3}" "${db}" "${sql}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
    string(STRIP "${o}" o)
    if(NOT rc EQUAL 0 OR NOT o STREQUAL "${expected}")
      message(FATAL_ERROR "sqlite3 '${sql}': '${o}${e}', expected '${expected}'")
    endif()
  endfunction()
  query("SELECT count(*) FROM cards" "153")
  query("SELECT front || '|' || back FROM cards WHERE id = 2" "die Katze|the cat")
  query("SELECT count(*) FROM reviews" "${total}")
  math(EXPR t1 "${t0} + 600000")
  math(EXPR t2 "${t0} + 1200000")
  query("SELECT group_concat(card_id || ',' || time_ms || ',' || rating, ' ') FROM (SELECT * FROM reviews WHERE card_id < 100 ORDER BY card_id, time_ms)"
        "1,${t0},3 1,${t1},3 2,${t0},1 2,${t2},3")
  # The stored logs hold the card before each answer, rebuilt by the training's reschedule: card 2
  # was new (stability 0), then at step 0 with S = w0 of the trained parameters (its Again).
  query("SELECT group_concat(prev_state || ',' || prev_step || ',' || (prev_stability = 0) || ',' || (prev_stability = (SELECT w FROM parameters WHERE k = 0)), ' ') FROM (SELECT * FROM reviews WHERE card_id = 2 ORDER BY time_ms)"
        "0,0,1,0 1,0,0,1")
  query("SELECT count(*) FROM cards WHERE id < 100 AND state = 0" "1")
  query("SELECT count(*) FROM reviews WHERE card_id = 500" "0")
  query("SELECT 'parameters:' || group_concat(printf(' %.4f', w), '') FROM (SELECT w FROM parameters ORDER BY k)"
        "${printed_params}")
  query("SELECT count(*) FROM cards WHERE id >= 100 AND (due_ms IS NULL OR stability <= 0 OR state = 0 OR reps = 0)" "0")
  query("SELECT count(*) FROM cards WHERE id >= 100 AND reps != (SELECT count(*) FROM reviews WHERE card_id = cards.id)" "0")
  message(STATUS "sqlite_cards: session passed; the database checked with ${SQLITE3}")
else()
  message(STATUS "sqlite_cards: session passed; no sqlite3 shell: the database checked through the example only")
endif()
