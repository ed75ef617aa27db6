# SPDX-License-Identifier: MIT
"""The one convention of the golden-table generators in tests/tools/.

Each generator computes its tables with an independent implementation
(NumPy, SciPy, scikit-learn, pandas, CPython, mpmath) and writes them into
their place in the repository:

  * a whole generated file (``write_file``), e.g. tests/eval/metrics_golden.ipp;
  * or the lines between ``// BEGIN GENERATED <name>`` and ``// END GENERATED <name>``
    of a test file (``write_block``), kept out of clang-format by
    ``// clang-format off`` / ``on`` around the markers.

Run a generator to rewrite its outputs, or with ``--check`` to compare them with
what is committed: it prints the outputs that differ (with the first differing
line) and exits 1, so a golden table that no longer matches its generator is a
failing check, not a silent drift. Two lines are the same when their text is,
except that a floating-point number may differ from the committed one by
REL_TOL of the larger, or by ABS_TOL (a value that cancels to near zero): NumPy
picks its exp, log and summation kernels by the CPU (AVX-512 machines get other
last bits than AVX2 ones), so the same generator writes 1.2728579914438676 on
one machine and ...674 on another, and LOWESS's fits, which cancel, move by a
few 1e-16. The tests compare with these tables at 1e-13 or wider where they
are not exact. Integers, and every other character, must match exactly; a
line within the tolerance is left as committed. Usage of every generator:

    /usr/bin/python3 tests/tools/gen_<name>.py            # rewrite
    /usr/bin/python3 tests/tools/gen_<name>.py --check    # exit 1 if out of date
"""
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# How far a generated floating-point number may be from the committed one (see
# the module's docstring).
REL_TOL = 1e-14
ABS_TOL = 1e-15

_FLOAT = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _is_float(token: str) -> bool:
    return any(c in token for c in ".eE")


def same_line(old: str, new: str) -> bool:
    """Whether `new` is `old` but for floating-point numbers within the tolerance."""
    if old == new:
        return True
    if _FLOAT.sub("#", old) != _FLOAT.sub("#", new):
        return False
    for a, b in zip(_FLOAT.findall(old), _FLOAT.findall(new)):
        if a == b:
            continue
        if not (_is_float(a) and _is_float(b)):
            return False
        x, y = float(a), float(b)
        if not (math.isfinite(x) and math.isfinite(y)):
            return False
        if abs(x - y) > max(REL_TOL * max(abs(x), abs(y)), ABS_TOL):
            return False
    return True


class Outputs:
    """The outputs of one generator run; finish() reports and returns the exit status."""

    def __init__(self) -> None:
        self.check = "--check" in sys.argv[1:]
        unknown = [a for a in sys.argv[1:] if a != "--check"]
        if unknown:
            sys.exit(f"{Path(sys.argv[0]).name}: unknown argument(s) {' '.join(unknown)}; usage: [--check]")
        self.stale: list[str] = []
        self.written: list[str] = []

    def _compare(self, label: str, old: list[str], new: list[str]) -> bool:
        if len(old) == len(new) and all(same_line(a, b) for a, b in zip(old, new)):
            return False
        first = next((k for k, (a, b) in enumerate(zip(old, new)) if not same_line(a, b)), min(len(old), len(new)))
        was = old[first] if first < len(old) else "<end>"
        now = new[first] if first < len(new) else "<end>"
        self.stale.append(f"{label}: line {first + 1} differs\n    committed: {was}\n    generated: {now}")
        return True

    def write_file(self, rel: str, text: str) -> None:
        """The whole file `rel` (relative to the repository) holds `text`."""
        path = ROOT / rel
        old = path.read_text(encoding="utf-8").split("\n") if path.exists() else []
        if self._compare(rel, old, text.split("\n")) and not self.check:
            path.write_text(text, encoding="utf-8")
            self.written.append(rel)

    def write_block(self, rel: str, name: str, lines: list[str]) -> None:
        """The lines between the markers of block `name` in `rel` are `lines`."""
        path = ROOT / rel
        begin, end = f"// BEGIN GENERATED {name}", f"// END GENERATED {name}"
        old = path.read_text(encoding="utf-8").split("\n")
        try:
            i = next(k for k, line in enumerate(old) if line.strip() == begin)
            j = next(k for k, line in enumerate(old) if k > i and line.strip() == end)
        except StopIteration:
            sys.exit(f"{rel}: the markers of block '{name}' ({begin} ... {end}) are not found")
        new = old[: i + 1] + lines + old[j:]
        if self._compare(f"{rel} [{name}]", old[i + 1 : j], lines) and not self.check:
            path.write_text("\n".join(new), encoding="utf-8")
            self.written.append(f"{rel} [{name}]")

    def finish(self) -> int:
        name = Path(sys.argv[0]).name
        if self.check:
            if self.stale:
                print(f"{name}: out of date (rerun it without --check):", file=sys.stderr)
                for s in self.stale:
                    print("  " + s, file=sys.stderr)
                return 1
            print(f"{name}: up to date")
            return 0
        print(f"{name}: " + ("updated " + ", ".join(self.written) if self.written else "nothing to update"))
        return 0
