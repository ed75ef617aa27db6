// A header of the fixture whose citations the docs check must report (ctest
// docs.detects_stale_citations): README "Present", docs/guide.md "1. First",
// docs/guide.md §1.2 exist; these do not:
// README "Gone", docs/guide.md "Third", docs/guide.md §3, docs/missing.md.
