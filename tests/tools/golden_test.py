# SPDX-License-Identifier: MIT
"""Tests of tests/tools/golden.py's line comparison (ctest tools.golden_tolerance):
floating-point numbers within its tolerance are the same line, anything else
that differs is not.

    /usr/bin/python3 tests/tools/golden_test.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import golden  # noqa: E402

CASES = [
    # (committed, generated, same?)
    ("{50, 1.2728579914438676, 41},", "{50, 1.2728579914438676, 41},", True),
    ("{50, 1.2728579914438676, 41},", "{50, 1.2728579914438674, 41},", True),  # 1 ulp (NumPy on AVX-512)
    ("0.37860082304526754,", "0.3786008230452675,", True),  # the shortest repr of a neighbour
    ("-0.016343523560887096, 0.18131713797790727,", "-0.016343523560887474, 0.18131713797790866,", True),  # LOWESS
    ("1.5e-3, 2.0", "1.5000000000000001e-3, 2.0", True),
    ("{50, 1.2728579914438676, 41},", "{51, 1.2728579914438676, 41},", False),  # an integer
    ("{50, 1.27285799144, 41},", "{50, 1.27285799145, 41},", False),  # 1e-11: a real change
    ("0.5,", "0.5000000000001,", False),
    ("x = 1.0;", "y = 1.0;", False),  # the text
    ("1.0, 2.0", "1.0, 2.0, 3.0", False),  # a number more
    ("1.0", "1", False),  # a float against an integer
    ("inf", "inf", True),
]


def main() -> int:
    failures = 0
    for old, new, want in CASES:
        got = golden.same_line(old, new)
        if got != want:
            print(f"same_line({old!r}, {new!r}) = {got}, expected {want}", file=sys.stderr)
            failures += 1
    print(f"golden_test.py: {len(CASES) - failures}/{len(CASES)} cases pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
