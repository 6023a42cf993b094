"""A second opinion on ptc's cost simulation: the same requests priced by cacheeconomics.

Usage: cost_check.py PTC RECORDING.json... -- STRATEGY...
Run it with a Python that has the `cacheeconomics` package (stdlib only; it makes no network
call). For every recording and strategy, and for Anthropic's explicit caching with the
strategy's breakpoints and with automatic caching's, on two models (Claude Sonnet 4.5, cached
from 1,024 tokens, and Claude Haiku 4.5, from 4,096), it prices each prompt twice:

- ptc: `ptc ab --format json` with the profile `anthropic` (`@model=claude-haiku-4-5` for
  Haiku, `@breakpoints=auto` for automatic caching);
- cacheeconomics: its replay (`simulate.simulate`, policy "as-shipped", neutral assumptions) of
  the requests `ptc pricing --requests` prints (each block a segment, keyed by the prefix it
  ends, marked where the placement puts a breakpoint, sent one second apart when the recording
  has no times), priced with its own registry's multipliers (`cost.price`) on the model's
  input price (ptc's `@model=` takes a model's prices and minimum).

The two models share nothing but the requests and the input price: each has its own cache
replay, its own minimum per model and its own multipliers. Each body of `ptc render --format anthropic` is checked
to carry a breakpoint on the blocks the requests mark, so the requests are the ones sent.

It prints one line per run (cost by each, the difference, and the tokens read and written by
each), then `ok: N runs, M within 1%, the largest difference D%` and exits 0 when every
difference is within 1% or is explained: cacheeconomics' neutral replay looks back from a
breakpoint to any earlier block, where the provider (and ptc) look back 20 blocks, so a run
where ptc reads less and some request has a cached prefix more than 20 blocks before its
breakpoints may differ. Any other difference exits 1.
"""
import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone

from cacheeconomics import cost, simulate
from cacheeconomics.trace import Request, Segment

TARGET = "anthropic/direct"
ON_DATE = "2026-11-26"
LOOKBACK = 20
# (model, ptc profile, the model's input price: cacheeconomics prices with it, so that the
# two differ only by their rules; `@model=` takes the model's prices and minimum)
MODELS = [
    ("claude-sonnet-4-5", "anthropic", 3.0),
    ("claude-haiku-4-5", "anthropic@model=claude-haiku-4-5", 1.0),
]
PLACEMENTS = ["strategy", "auto"]


def run(ptc, *args):
    done = subprocess.run([ptc, *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} failed: {done.stderr}")
    return done.stdout


def marks(blocks, placement):
    """The indices of the blocks that carry a breakpoint, as ptc places them."""
    if placement == "strategy":
        chosen = [i for i, b in enumerate(blocks) if b["breakpoint"]]
        return set(chosen[-4:])
    # Automatic caching: one breakpoint, on the last block.
    return {len(blocks) - 1} if blocks else set()


def replay(prompts, model, placement):
    """cacheeconomics' usages of the prompts of one run."""
    start = datetime(2026, 11, 26, tzinfo=timezone.utc)
    requests = []
    for p in prompts:
        blocks = p["blocks"]
        marked = marks(blocks, placement)
        segments, before = [], 0
        for i, b in enumerate(blocks):
            segments.append(Segment(id=b["prefix"], role="system" if b["system"] else "user",
                                    tokens=b["end"] - before, index=i,
                                    cache_marked=i in marked, ttl="5m" if i in marked else None))
            before = b["end"]
        # The tokens after the last block (the reply's priming): never marked.
        segments.append(Segment(id=f"tail-{p['turns']}", role="user",
                                tokens=p["tokens"] - before, index=len(blocks)))
        at = p["at"] if p["at"] is not None else float(p["turns"])
        requests.append(Request(request_id=str(p["turns"]), sent_at=start + timedelta(seconds=at),
                                model=model, usage={}, segments=segments, target_id=TARGET))
    result = simulate.simulate(requests, "as-shipped")
    assert len(result.usages) == len(prompts), result.omitted
    return result.usages


def deep_read_possible(prompts, placement):
    """Whether some request has a prefix an earlier one wrote more than LOOKBACK blocks before
    each of its breakpoints: where a lookback from any earlier block reads more than one of 20."""
    written = set()
    for p in prompts:
        blocks = p["blocks"]
        marked = sorted(marks(blocks, placement))
        for i, b in enumerate(blocks):
            if b["prefix"] in written and marked and all(m - i >= LOOKBACK for m in marked if m >= i):
                if any(m >= i for m in marked):
                    return True
        written.update(blocks[m]["prefix"] for m in marked)
    return False


def check_bodies(ptc, recording, strategy, prompts):
    """Each Anthropic body marks the blocks the requests mark (the strategy's placement)."""
    for p in prompts:
        body = json.loads(run(ptc, "render", recording, "--turns", str(p["turns"]),
                              "--strategy", strategy, "--format", "anthropic"))
        parts = list(body.get("system") or [])
        for message in body["messages"]:
            content = message["content"]
            parts.extend(content if isinstance(content, list) else [])
        in_body = sum(1 for part in parts if "cache_control" in part)
        in_requests = len(marks(p["blocks"], "strategy"))
        if in_body != in_requests:
            sys.exit(f"{recording} {strategy} turn {p['turns']}: the body has {in_body} "
                     f"breakpoints, the request {in_requests}")


def main(argv):
    split = argv.index("--")
    ptc, recordings, strategies = argv[1], argv[2:split], argv[split + 1:]
    lines, worst, within, unexplained = [], 0.0, 0, []
    for recording in recordings:
        requests = {s: json.loads(run(ptc, "pricing", "--requests", recording, "--strategy", s))
                    for s in strategies}
        for s in strategies:
            check_bodies(ptc, recording, s, requests[s]["prompts"])
        for model, profile, rate in MODELS:
            for placement in PLACEMENTS:
                name = profile if placement == "strategy" else f"{profile}@breakpoints=auto"
                ab = json.loads(run(ptc, "ab", recording, "--strategies", ",".join(strategies),
                                    "--pricing", name, "--format", "json", "--no-timing"))
                for r in ab["runs"]:
                    if r["strategy"] not in strategies or r["error"]:
                        continue
                    prompts = requests[r["strategy"]]["prompts"]
                    ours = [c["cost"][name] for c in r["prompts"]]
                    usages = replay(prompts, model, placement)
                    theirs = sum(cost.price(u, model, TARGET, on_date=ON_DATE,
                                            effective_rate=rate).usd for u in usages)
                    mine = sum(c["cost"] for c in ours)
                    diff = (theirs - mine) / mine if mine else 0.0
                    read = (sum(c["read"] for c in ours), sum(u.cache_read for u in usages))
                    wrote = (sum(c["written"] for c in ours),
                             sum(u.cache_write_5m + u.cache_write_1h for u in usages))
                    lines.append(f"{recording} {r['strategy']} {model} {placement}: "
                                 f"ptc ${mine:.6f}, cacheeconomics ${theirs:.6f} ({diff:+.2%}); "
                                 f"read {read[0]}/{read[1]}, written {wrote[0]}/{wrote[1]}")
                    worst = max(worst, abs(diff))
                    if abs(diff) <= 0.01:
                        within += 1
                    elif not (read[0] < read[1] and deep_read_possible(prompts, placement)):
                        unexplained.append(lines[-1])
    print(f"ok: {len(lines)} runs, {within} within 1%, the largest difference {worst:.2%}"
          if not unexplained else f"failed: {len(unexplained)} runs differ by more than 1%")
    for line in lines:
        print(line)
    for line in unexplained:
        print(f"unexplained: {line}")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
