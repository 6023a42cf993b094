#!/usr/bin/env bash
# Fuzzes ptc: `fuzz/run.sh [TARGET...] [-- SECONDS]`, each target for SECONDS (default 600) on
# its committed seeds in fuzz/corpus/TARGET. Targets (all when none is named):
#   recording  the recording parser on arbitrary bytes
#   formatter  the Clojure formatter on arbitrary values and limits
#   render     every built-in strategy's render over every prefix of any valid recording
#   serve      `ptc serve` on arbitrary request lines: one answer per line, the server alive
#   merge      `ptc ab merge` on arbitrary parts: no panic, no NaN, no share above 100%
#   template_diff  the direct template engine against tera, on templates generated from a
#              grammar of the part of tera it runs and what lies just outside it, and on
#              generated fields: whenever it renders a section, tera renders the same text
# template_diff decodes its input as choices of a grammar, so any bytes are an input; its seeds
# are a few short ones whose templates the direct engine runs. TEMPLATE_DIFF_SHOW=1 prints each
# input's templates, fields and both renders (`cargo fuzz run template_diff FILE` to read one).
# Needs cargo-fuzz (`cargo install cargo-fuzz`); on a stable toolchain RUSTC_BOOTSTRAP lets it
# use the sanitizer flags. A crash leaves its input in fuzz/artifacts/TARGET and stops the run.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGETS=()
SECONDS_TO_RUN=600
while [ $# -gt 0 ]; do
    case "$1" in
        --) SECONDS_TO_RUN="${2:?seconds after --}"; shift 2 ;;
        *) TARGETS+=("$1"); shift ;;
    esac
done
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(recording formatter render serve template_diff merge)
for target in "${TARGETS[@]}"; do
    # New inputs go to a scratch directory (the first corpus); the committed seeds are only read.
    WORK="$(mktemp -d)"
    RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" "$WORK" "fuzz/corpus/$target" -- \
        -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -rss_limit_mb=4096
    echo "fuzzed $target for $SECONDS_TO_RUN s; corpus grown in $WORK"
done
