// SPDX-License-Identifier: MIT
// srs/detail/cpu.hpp: cpu_has_avx2 agrees with the flags the kernel reports
// for this machine (Linux's /proc/cpuinfo).
#include <doctest/doctest.h>

#include <fstream>  // std::ifstream
#include <string>   // std::string, std::getline

#include <srs/detail/cpu.hpp>  // srs::detail::cpu_has_avx2

TEST_CASE("cpu_has_avx2 agrees with /proc/cpuinfo's flags") {
  std::ifstream in("/proc/cpuinfo");
  if (!in) {
    MESSAGE("no /proc/cpuinfo here: nothing to compare with");
    return;
  }
  bool listed = false, seen_flags = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("flags", 0) != 0) continue;
    seen_flags = true;
    listed = (line + " ").find(" avx2 ") != std::string::npos;
    break;
  }
  if (!seen_flags) {
    MESSAGE("/proc/cpuinfo lists no flags (not x86): nothing to compare with");
    return;
  }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  CHECK(srs::detail::cpu_has_avx2() == listed);
#else
  CHECK_FALSE(srs::detail::cpu_has_avx2());
#endif
}
