#!/usr/bin/env bash
# Runs the recording-parser fuzz target for SECONDS (default 600) on the committed seeds.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); on a stable toolchain RUSTC_BOOTSTRAP lets it
# use the sanitizer flags.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-600}"
# New inputs go to a scratch directory (the first corpus); the committed seeds are only read.
WORK="$(mktemp -d)"
RUSTC_BOOTSTRAP=1 cargo fuzz run recording "$WORK" fuzz/corpus/recording -- \
    -max_total_time="$SECONDS_TO_RUN" -max_len=65536
echo "fuzzed for $SECONDS_TO_RUN s; corpus grown in $WORK"
