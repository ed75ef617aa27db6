#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Golden tables for tests/detail/number.test.cpp and tests/detail/json.test.cpp,
computed by CPython itself:

  repr   repr(x) for hand-picked and seeded random doubles (srs::detail::shortest_repr)
  round  round(x, n) (srs::detail::round_decimal)
  dumps  json.dumps(json.loads(text)) with ensure_ascii False and True
         (srs::detail::json::parse followed by dump)

Each table lives in its test file between the lines
"// BEGIN GENERATED <name>" and "// END GENERATED <name>".

Usage (the convention of every generator: tests/tools/golden.py):
  python3 tests/tools/gen_repr_golden.py          rewrite the tables in place
  python3 tests/tools/gen_repr_golden.py --check  exit 1 if a table is out of date
"""

import json
import math
import random
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import golden  # noqa: E402  (tests/tools/golden.py: rewrite or --check)

SEED = 20240611


def cpp_double(x: float) -> str:
    """An exact C++ literal for x (hex float, or a named constant)."""
    if math.isnan(x):
        return "qnan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x.hex()


def cpp_string(data: bytes) -> str:
    """A C++ string_view literal holding exactly these bytes (octal escapes never
    swallow a following digit, unlike \\x)."""
    out = []
    for b in data:
        c = chr(b)
        if c in '"\\':
            out.append("\\" + c)
        elif 0x20 <= b < 0x7F:
            out.append(c)
        else:
            out.append("\\%03o" % b)
    return '"' + "".join(out) + '"sv'


def from_bits(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def repr_inputs() -> list:
    xs = [
        0.0, -0.0, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 0.1 + 0.2, 1.0, -1.0, 3.0, 100.0, 123.0, 0.5, 1.5,
        0.141614, 0.177478, 0.023347, 0.4318, 3.6098, -0.006152, 28.9832, 36500.0, 0.001,
        1e-5, 1e-4, 0.0001, 0.00012345, 0.00009999999999999999, 1e-3, 1e-7, 2.5e-7,
        1e15, 1e16, 1.5e16, 1e17, 1e22, 1e23, 1e100, 1e-100, 1e300, 1e-300,
        123456789012345678.0, 1234567890123456.0, 9999999999999998.0, 12345678901234567.0,
        2.0 ** 53, 2.0 ** 53 + 2, 2.0 ** 63, 2.0 ** 64, 2.0 ** -1074, 2.0 ** -1022,
        5e-324, 1e-323, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308,
        2.220446049250313e-16, math.pi, math.e, -math.pi * 1e10, 4.35, 0.07, 9.5, 1e-06,
        math.inf, -math.inf, math.nan,
    ]
    for k in range(-8, 19):  # both sides of every threshold of the fixed/scientific switch
        p = 10.0 ** k
        xs += [p, math.nextafter(p, 0.0), math.nextafter(p, math.inf), -p]
    rng = random.Random(SEED)
    for _ in range(150):  # any finite bit pattern
        x = from_bits(rng.getrandbits(64))
        if math.isfinite(x):
            xs.append(x)
    for _ in range(60):
        xs.append(rng.random())
    for _ in range(60):  # metric-like values as written to result files
        xs.append(round(rng.uniform(-1, 1), rng.randint(1, 6)))
    for _ in range(60):
        xs.append(rng.choice([-1, 1]) * 10 ** rng.uniform(-25, 25))
    return xs


def round_inputs() -> list:
    cases = [
        (0.03125, 4), (2.675, 2), (1.005, 2), (0.125, 2), (0.375, 2), (0.5, 0), (1.5, 0), (2.5, 0),
        (-2.5, 0), (-0.5, 0), (-0.00004, 4), (0.00005, 4), (0.00015, 4), (0.141614499999, 6),
        (0.1416145, 6), (0.9999995, 6), (123.456, 1), (1e20, 2), (1e300, 4), (1e-300, 4),
        (5e-324, 10), (0.1, 17), (0.1, 20), (3.6098, 4), (-3.60985, 4), (1234.5678, 0),
        (36500.0, 4), (0.001, 4), (-0.006152, 6), (2.0 ** -20, 6),
    ]
    rng = random.Random(SEED + 1)
    for _ in range(120):
        cases.append((rng.uniform(-10, 10), rng.randint(0, 8)))
    for _ in range(60):  # exact binary ties: k / 2^5 has 5 decimals ending in 5
        cases.append((rng.randint(-100000, 100000) / 32, 4))
    for _ in range(40):
        cases.append((rng.choice([-1, 1]) * 10 ** rng.uniform(-12, 12), rng.randint(0, 15)))
    return cases


# JSON texts parsed by json.loads; the tables hold what json.dumps writes back.
DUMP_TEXTS = [
    '{"metrics": {"RMSE": 0.177478, "LogLoss": 0.141614, "RMSE(bins)": 0.023347, "AUC": null}, '
    '"user": 1, "size": 3055, "parameters": {"0": [0.4318, 3.6098]}}',
    '{ "a" :1,"b":[ 1.5 ,null,true,false ] ,\n "c" : { } , "d":[]}',
    '[0, -0, -0.0, 1E2, 1e-2, 0.1e1, 1.0e+2, 123456789012345678, -9223372036854775808, '
    '9223372036854775807, 1e400, -1e400, 1e-400, -1e-400, 5e-324, 2.5e-7, 1e16]',
    "[NaN, Infinity, -Infinity]",
    '"plain"',
    '"quote \\" backslash \\\\ slash \\/ controls \\b\\f\\n\\r\\t"',
    '"' + "".join("\\u%04x" % c for c in range(0x20)) + '\\u007f"',
    '"\\u00e9\\u4e2d\\u2028\\ud83d\\ude00 raw: \u00e9\u4e2d\U0001F600"',
    '{"a": 1, "b": 2, "a": 3}',
    '{"k": {"k": {"k": [[[], {}], [{"x": "y"}]]}}}',
    '"\\u0000 after nul"',
]


def repr_table() -> list:
    lines = ["constexpr ReprCase repr_cases[] = {"]
    for x in repr_inputs():
        text = repr(x)
        if math.isnan(x):
            text = "NaN"
        elif math.isinf(x):
            text = "Infinity" if x > 0 else "-Infinity"
        lines.append(f'    {{{cpp_double(x)}, "{text}"}},')
    lines.append("};")
    return lines


def round_table() -> list:
    lines = ["constexpr RoundCase round_cases[] = {"]
    for x, n in round_inputs():
        r = round(x, n)
        lines.append(f'    {{{cpp_double(x)}, {n}, {cpp_double(r)}, "round({x!r}, {n}) = {r!r}"}},')
    lines.append("};")
    return lines


def dumps_table() -> list:
    lines = ["const DumpCase dump_cases[] = {"]
    for text in DUMP_TEXTS:
        value = json.loads(text)
        utf8 = json.dumps(value, ensure_ascii=False)
        ascii_ = json.dumps(value)
        lines.append("    {" + cpp_string(text.encode()) + ",")
        lines.append("     " + cpp_string(utf8.encode()) + ",")
        lines.append("     " + cpp_string(ascii_.encode()) + "},")
    lines.append("};")
    return lines


def main() -> int:
    outputs = golden.Outputs()
    outputs.write_block("tests/detail/number.test.cpp", "repr", repr_table())
    outputs.write_block("tests/detail/number.test.cpp", "round", round_table())
    outputs.write_block("tests/detail/json.test.cpp", "dumps", dumps_table())
    return outputs.finish()


if __name__ == "__main__":
    sys.exit(main())
