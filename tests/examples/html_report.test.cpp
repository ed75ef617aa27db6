// SPDX-License-Identifier: MIT
// Browser test of srs-report's HTML page: synthetic result files for three
// models (two with calibration data, one without), `srs-report --html`, then
// Debian's headless Chromium (SRS_CHROMIUM_EXE, defined by tests/CMakeLists.txt
// only when `find_program` finds chromium; .ci/run installs it):
//
//   * --screenshot at 1400x3000: the PNG exists, has the PNG signature and an
//     IHDR of 1400 x 3000, and is non-trivial (a blank page compresses to a few
//     kilobytes; the report is well over 30 KB);
//   * --dump-dom: the page Chromium loaded holds exactly 5 charts — `<svg>`
//     elements with a data-chart attribute: 2 calibration graphs, the
//     superiority, Wilcoxon and Cohen's d heatmaps — and the note that AVG has
//     no calibration data.
//
// Chromium runs with a fresh --user-data-dir, no network features and
// --no-sandbox (CI runs as root), under `timeout` so that a hung browser fails
// the test instead of the suite.
#ifdef SRS_CHROMIUM_EXE

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t
#include <string>   // std::string

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, MESSAGE

#include "support/report_support.hpp"

namespace {

using namespace report_test;

/// Chromium's command line for `action` (e.g. --screenshot=FILE or --dump-dom) on `page`.
std::string chromium_args(const fs::path& profile, const std::string& action, const fs::path& page) {
  return "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
         "--disable-component-update --disable-sync --user-data-dir=" +
         sh_quote(profile.string()) + " " + action + " --window-size=1400,3000 " +
         sh_quote("file://" + fs::absolute(page).string());
}

std::uint32_t big_endian32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(s[at + k]);
  return v;
}

}  // namespace

TEST_CASE("html: srs-report's page renders in headless Chromium with every chart") {
  TempDir tmp;
  const fs::path dir = tmp.path / "result";
  fs::create_directory(dir);
  write_model(dir, {"FSRS-6", 0.03, 0.0, true, 1}, 10);
  write_model(dir, {"FSRS-5", 0.05, 0.0, true, 4}, 10);
  write_model(dir, {"AVG", 0.12, 0.02, false, 2}, 10);
  const fs::path page = tmp.path / "report.html";
  const Run r = run(tmp, SRS_REPORT_EXE, sh_quote(dir.string()) + " --resamples 999 --html " + sh_quote(page.string()));
  REQUIRE(r.status == 0);
  REQUIRE(fs::exists(page));

  const std::string timeout = "120 " + sh_quote(SRS_CHROMIUM_EXE);
  const fs::path png = tmp.path / "report.png";
  const Run shot =
      run(tmp, "timeout",
          timeout + " " + chromium_args(tmp.path / "profile1", "--screenshot=" + sh_quote(png.string()), page));
  MESSAGE("chromium --screenshot stderr: " << shot.err.substr(0, 2000));
  REQUIRE(shot.status == 0);
  REQUIRE(fs::exists(png));
  const std::string image = read_file(png);
  CHECK(image.size() > 30000);
  REQUIRE(image.size() > 24);
  CHECK(image.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  CHECK(image.compare(12, 4, "IHDR") == 0);
  CHECK(big_endian32(image, 16) == 1400);
  CHECK(big_endian32(image, 20) == 3000);

  const Run dom = run(tmp, "timeout", timeout + " " + chromium_args(tmp.path / "profile2", "--dump-dom", page));
  REQUIRE(dom.status == 0);
  CHECK(contains(dom.out, "SRS benchmark report"));
  CHECK(count(dom.out, "<svg") == 5);
  CHECK(count(dom.out, "<svg xmlns=\"http://www.w3.org/2000/svg\" data-chart=") == 5);
  CHECK(count(dom.out, "data-chart=\"calibration\"") == 2);
  CHECK(count(dom.out, "data-chart=\"superiority\"") == 1);
  CHECK(count(dom.out, "data-chart=\"wilcoxon\"") == 1);
  CHECK(count(dom.out, "data-chart=\"cohen-d\"") == 1);
  CHECK(contains(dom.out, "No calibration data for <b>AVG</b>"));
}

#endif  // SRS_CHROMIUM_EXE
