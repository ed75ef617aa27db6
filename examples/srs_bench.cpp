// SPDX-License-Identifier: MIT
// srs-bench: placeholder until the evaluator lands.
#include <cstdio>
int main() { std::puts("srs-bench: not implemented yet"); return 0; }
