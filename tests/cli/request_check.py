"""Checks ptc's ready-to-send requests against the providers' official Python SDKs, offline.

Usage: request_check.py PTC RECORDING.json... -- STRATEGY...
Run it with a Python that has the `anthropic` and `openai` packages; it makes no network call.
For every recording and strategy it renders `ptc render --format anthropic` (each cache
placement in turn, the 1h TTL on every other recording) and `--format openai`, asks `ptc serve
--stdio` for the same bodies, and validates each one; it prints `ok: N bodies` when every check
holds and exits 1 at the first that does not.

How a body is validated: the SDKs' request types (`MessageCreateParamsNonStreaming`,
`CompletionCreateParamsNonStreaming`) are TypedDicts, which Python does not check at run time;
pydantic's TypeAdapter validates a dict against them. Two of its leniencies are closed here:
- fields typed `Iterable[...]` (`messages`, `system`, `content`) come back as lazy iterators
  whose items are only validated when iterated, so the result is walked to the end;
- unknown keys are dropped rather than refused, and a block may match a *response* model
  (`TextBlock`, whose extra keys are allowed) instead of the request's `TextBlockParam`: so the
  walked result must equal the body, key for key. A body passes only when the SDK's request
  types hold every part of it.
Checks the types cannot express are made beside them (Anthropic: no `system` role among the
messages, no blank text block, at most 4 breakpoints; OpenAI: no blank message, at most 4
breakpoints, none on an assistant message). Before the renders, known-bad bodies must be refused
(a block of type "txt", `cache_control` of type "x" on a block or at the top, a `ttl` of "2h",
an unknown key, an OpenAI role "sys", a breakpoint of mode "x"), so a check that passes
everything fails.
"""
import concurrent.futures
import copy
import json
import subprocess
import sys
from collections.abc import Iterator

import anthropic
import openai
import pydantic
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

ANTHROPIC = pydantic.TypeAdapter(MessageCreateParamsNonStreaming)
OPENAI = pydantic.TypeAdapter(CompletionCreateParamsNonStreaming)
PLACEMENTS = ["strategy", "auto", "none"]


def walked(value):
    """`value` with every lazy iterator pydantic left in it iterated (and so validated)."""
    if isinstance(value, Iterator):
        return [walked(v) for v in value]
    if isinstance(value, dict):
        return {k: walked(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [walked(v) for v in value]
    return value


def difference(body, held, path="body"):
    """Where `held` first differs from `body`, and how."""
    if isinstance(body, dict) and isinstance(held, dict):
        for key in body.keys() | held.keys():
            if key not in held:
                return f"{path}.{key} is dropped"
            if key not in body:
                return f"{path}.{key} is added"
            found = difference(body[key], held[key], f"{path}.{key}")
            if found:
                return found
    elif isinstance(body, list) and isinstance(held, list) and len(body) == len(held):
        for i, (b, h) in enumerate(zip(body, held)):
            found = difference(b, h, f"{path}[{i}]")
            if found:
                return found
    elif body != held:
        return f"{path} is held as {held!r}"
    return None


def problems(fmt, body):
    """Why `body` is not a valid request of format `fmt`, or None."""
    adapter = ANTHROPIC if fmt == "anthropic" else OPENAI
    try:
        held = walked(adapter.validate_python(body))
    except pydantic.ValidationError as e:
        return f"the SDK's request type refuses it: {e}"
    if held != body:
        return f"the SDK's request type does not hold it as it is: {difference(body, held)}"
    if fmt == "anthropic":
        if not body["messages"]:
            return "no message"
        blocks = list(body.get("system", []))
        for message in body["messages"]:
            if message["role"] not in ("user", "assistant"):
                return f"a message of role {message['role']}"
            if not message["content"]:
                return "a message without blocks"
            blocks.extend(message["content"])
        if any(not b["text"].strip() for b in blocks):
            return "a blank text block"
        if sum("cache_control" in b for b in blocks) > 4:
            return "more than 4 breakpoints"
    else:
        def text(content):
            if isinstance(content, str):
                return content
            return "".join(part["text"] for part in content)
        if any(not text(m["content"]).strip() for m in body["messages"]):
            return "a blank message"
        parts = [p for m in body["messages"] if not isinstance(m["content"], str)
                 for p in m["content"]]
        if sum("prompt_cache_breakpoint" in p for p in parts) > 4:
            return "more than 4 breakpoints"
        if any(m["role"] == "assistant" and not isinstance(m["content"], str)
               and any("prompt_cache_breakpoint" in p for p in m["content"])
               for m in body["messages"]):
            return "a breakpoint on an assistant message"
    return None


def must_pass(what, fmt, body):
    problem = problems(fmt, body)
    if problem:
        sys.exit(f"{what}: {problem}\n{json.dumps(body)[:2000]}")


def bad_bodies(anthropic_body, auto_body, openai_body):
    """Bodies the check must refuse, made from good ones."""
    def changed(body, change):
        body = copy.deepcopy(body)
        change(body)
        return body

    def first_block(body):
        return body["messages"][0]["content"][0]

    def marked(body):
        blocks = list(body.get("system", [])) + [b for m in body["messages"] for b in m["content"]]
        return next(b for b in blocks if "cache_control" in b)

    return [
        ("a block of type txt", "anthropic",
         changed(anthropic_body, lambda b: first_block(b).update(type="txt"))),
        ("cache_control of type x", "anthropic",
         changed(anthropic_body, lambda b: marked(b)["cache_control"].update(type="x"))),
        ("a ttl of 2h", "anthropic",
         changed(anthropic_body, lambda b: marked(b)["cache_control"].update(ttl="2h"))),
        ("an unknown key in a block", "anthropic",
         changed(anthropic_body, lambda b: first_block(b).update(cache=True))),
        ("a top-level cache_control of type x", "anthropic",
         changed(auto_body, lambda b: b["cache_control"].update(type="x"))),
        ("max_tokens as text", "anthropic",
         changed(anthropic_body, lambda b: b.update(max_tokens="many"))),
        ("a message of role system", "anthropic",
         changed(anthropic_body, lambda b: b["messages"][0].update(role="system"))),
        ("a blank block", "anthropic",
         changed(anthropic_body, lambda b: first_block(b).update(text=" \n"))),
        ("an openai role sys", "openai",
         changed(openai_body, lambda b: b["messages"][0].update(role="sys"))),
        ("an openai content of blocks of type txt", "openai",
         changed(openai_body, lambda b: b["messages"][1].update(
             content=[{"type": "txt", "text": "x"}]))),
        ("cache_control on an openai message", "openai",
         changed(openai_body, lambda b: b["messages"][1].update(
             cache_control={"type": "ephemeral"}))),
        ("an openai body without a model", "openai",
         changed(openai_body, lambda b: b.pop("model"))),
        ("prompt_cache_breakpoint of mode x", "openai",
         changed(openai_body, lambda b: openai_marked(b)["prompt_cache_breakpoint"].update(
             mode="x"))),
        ("prompt_cache_options of mode x", "openai",
         changed(openai_body, lambda b: b["prompt_cache_options"].update(mode="x"))),
    ]


def openai_marked(body):
    return next(p for m in body["messages"] if not isinstance(m["content"], str)
                for p in m["content"] if "prompt_cache_breakpoint" in p)


def cli_args(recording, strategy, fmt, placement, ttl):
    args = ["render", recording, "--strategy", strategy, "--format", fmt]
    if placement:
        args += ["--cache-placement", placement]
    if ttl:
        args += ["--cache-ttl", ttl]
    return args


def main():
    ptc = sys.argv[1]
    split = sys.argv.index("--")
    recordings, strategies = sys.argv[2:split], sys.argv[split + 1:]
    assert recordings and strategies, "usage: request_check.py PTC RECORDING... -- STRATEGY..."

    def render(args):
        run = subprocess.run([ptc, *args], capture_output=True, text=True, encoding="utf-8")
        if run.returncode != 0:
            sys.exit(f"ptc {' '.join(args)} failed:\n{run.stderr}")
        return json.loads(run.stdout)

    # The check refuses bad bodies (made from a body with a breakpoint) before it is trusted.
    good_anthropic = render(
        cli_args(recordings[0], strategies[0], "anthropic", "strategy", "1h"))
    good_auto = render(cli_args(recordings[0], strategies[0], "anthropic", "auto", "5m"))
    good_openai = render(cli_args(recordings[0], strategies[0], "openai", "strategy", None))
    must_pass("the body the bad ones are made from", "anthropic", good_anthropic)
    must_pass("the body the bad ones are made from", "anthropic", good_auto)
    must_pass("the body the bad ones are made from", "openai", good_openai)
    for what, fmt, body in bad_bodies(good_anthropic, good_auto, good_openai):
        if problems(fmt, body) is None:
            sys.exit(f"the check accepts a bad body ({what}):\n{json.dumps(body)[:2000]}")

    cases = []
    for i, recording in enumerate(recordings):
        for j, strategy in enumerate(strategies):
            placement = PLACEMENTS[(i + j) % len(PLACEMENTS)]
            ttl = "1h" if i % 2 else "5m"
            cases.append((recording, strategy, "anthropic", placement, ttl))
            cases.append((recording, strategy, "openai", placement, None))

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        bodies = list(pool.map(lambda case: render(cli_args(*case)), cases))
    for case, body in zip(cases, bodies):
        must_pass(f"ptc {' '.join(cli_args(*case))}", case[2], body)

    server = subprocess.Popen(
        [ptc, "serve", "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        encoding="utf-8",
    )
    loaded = {}
    for n, ((recording, strategy, fmt, placement, ttl), body) in enumerate(zip(cases, bodies)):
        if recording not in loaded:
            with open(recording, encoding="utf-8") as f:
                loaded[recording] = json.load(f)
        request = {"id": n, "recording": loaded[recording], "strategy": strategy, "format": fmt}
        request.update(cache_placement=placement)
        if ttl:
            request.update(cache_ttl=ttl)
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        answer = json.loads(server.stdout.readline())
        what = f"serve {fmt} {recording} {strategy}"
        if answer.get("id") != n or "request" not in answer:
            sys.exit(f"{what}: {json.dumps(answer)[:2000]}")
        must_pass(what, fmt, answer["request"])
        if answer["request"] != body:
            sys.exit(f"{what}: the body differs from ptc render's")
    server.stdin.close()
    assert server.wait(timeout=60) == 0

    print(f"ok: {2 * len(bodies)} bodies (anthropic {anthropic.__version__}, "
          f"openai {openai.__version__}, pydantic {pydantic.VERSION})")


main()
