// SPDX-License-Identifier: MIT
// The doctest main, compiled once (OBJECT library) and linked into every test exe.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
