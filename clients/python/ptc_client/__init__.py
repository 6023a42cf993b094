"""A Python client of `ptc serve --stdio`: render the prompt an agent sends before its next turn
through ptc's compression strategies.

    from ptc_client import Ptc

    with Ptc() as ptc:
        response = ptc.render("run.json", strategy="delta-log", turns=2)
        for message in response["messages"]:
            print(message["role"], message["content"])

`Ptc` starts one `ptc serve --stdio` process and sends it one JSON request per line; each
`render` call returns the parsed response. An error answer raises `RenderError` (with the
server's `code` and `message`); a server that stopped raises `ServerExited` (with its exit status
and the end of what it wrote on stderr); a request that JSON or UTF-8 cannot carry (a `NaN` or an
infinity, a string with a lone surrogate) raises `BadRequestValue`, naming the field, before
anything is sent. All are `PtcError`s. Standard library only.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import threading
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

__all__ = ["Ptc", "PtcError", "RenderError", "ServerExited", "BadRequestValue"]
__version__ = "0.2.0"

#: What `render` takes as a recording: the recording itself, or the path of a JSON file.
RecordingLike = Union[Mapping[str, Any], str, "os.PathLike[str]"]

# How much of the server's stderr is kept for the message of `ServerExited`.
_STDERR_KEPT = 64 * 1024


class PtcError(Exception):
    """Something went wrong talking to ptc."""


class RenderError(PtcError):
    """The server answered a request with an error.

    `code` is one of `bad_request`, `too_large`, `bad_recording`, `unknown_strategy` and
    `render_failed`; `message` says what and where (e.g. the JSON path of a bad recording field).
    """

    def __init__(self, code: str, message: str, request_id: Any = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.request_id = request_id


class BadRequestValue(PtcError, ValueError):
    """A request holds a value that cannot be sent: a float that JSON has no number for (`NaN`,
    an infinity) or a string that UTF-8 cannot encode (a lone surrogate). Raised before anything
    is sent; `field` is where it is (`recording.turns[2].result`, `options.label`), `reason`
    what it is."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"cannot send the request: {field}: {reason}")
        self.field = field
        self.reason = reason


def _unsendable(value: Any, field: str) -> Optional[BadRequestValue]:
    """The first value in `value` (at `field`) that JSON or UTF-8 cannot carry, as an error."""
    if isinstance(value, float) and not math.isfinite(value):
        return BadRequestValue(field, f"{value!r} is not a number JSON can carry")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as err:
            code = ord(value[err.start])
            return BadRequestValue(
                field,
                f"the string holds a lone surrogate (U+{code:04X} at character {err.start}), "
                "which UTF-8 cannot encode",
            )
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = f"{field}.{key}" if field else str(key)
            found = _unsendable(key, f"{name} (the key)") or _unsendable(item, name)
            if found is not None:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = _unsendable(item, f"{field}[{i}]")
            if found is not None:
                return found
    return None


# The deepest a request may nest: what `ptc serve` reads (a recorded value's 128 levels below
# the at most 9 of a request and its recording).
_MAX_DEPTH = 137


def _misshapen(value: Any) -> Optional[BadRequestValue]:
    """The first place in `value` that nests deeper than ptc reads, or that holds itself, as an
    error; found without recursion, so that no input raises a bare RecursionError."""
    stack = [(value, "", 0, ())]
    while stack:
        item, field, depth, holders = stack.pop()
        if not isinstance(item, (Mapping, list, tuple)):
            continue
        if id(item) in holders:
            return BadRequestValue(field or "request", "it holds itself (a circular reference)")
        if depth >= _MAX_DEPTH:
            return BadRequestValue(
                field or "request", f"nested deeper than the {_MAX_DEPTH} levels ptc serve reads"
            )
        inside = holders + (id(item),)
        if isinstance(item, Mapping):
            children = [(v, f"{field}.{k}" if field else str(k)) for k, v in item.items()]
        else:
            children = [(v, f"{field}[{i}]") for i, v in enumerate(item)]
        for child, name in reversed(children):
            stack.append((child, name, depth + 1, inside))
    return None


def _encode(request: Mapping[str, Any]) -> bytes:
    """The request as one JSON line in UTF-8; `BadRequestValue` when it holds what JSON or UTF-8
    cannot carry, nests deeper than ptc reads or holds itself."""
    found = _misshapen(request)
    if found is not None:
        raise found
    try:
        return (json.dumps(request, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    except (ValueError, UnicodeEncodeError) as err:
        found = _unsendable(request, "")
        if found is not None:
            raise found from None
        raise PtcError(f"cannot send the request: {err}") from err


class ServerExited(PtcError):
    """`ptc serve` is not running (it failed to start, stopped, or was closed)."""

    def __init__(self, message: str, returncode: Optional[int] = None, stderr: str = "") -> None:
        details = f" (exit status {returncode})" if returncode is not None else ""
        tail = stderr.strip()
        super().__init__(f"{message}{details}" + (f": {tail}" if tail else ""))
        self.returncode = returncode
        self.stderr = stderr


class Ptc:
    """One `ptc serve --stdio` process. Use it as a context manager, or call `close()`.

    `binary` is the `ptc` executable (default: `ptc` on PATH); `config` a configuration file
    (`--config`), `sets` `--set KEY=VALUE` flags, `args` any other flags placed before `serve`;
    `cwd` and `env` are those of the process (ptc reads `./ptc.toml` and `./templates` from its
    working directory). Requests are sent one at a time (a lock serializes callers).
    """

    def __init__(
        self,
        binary: Union[str, "os.PathLike[str]"] = "ptc",
        *,
        config: Optional[Union[str, "os.PathLike[str]"]] = None,
        sets: Iterable[str] = (),
        args: Iterable[str] = (),
        cwd: Optional[Union[str, "os.PathLike[str]"]] = None,
        env: Optional[Mapping[str, str]] = None,
    ) -> None:
        self._binary = os.fspath(binary)
        self._global: List[str] = []
        if config is not None:
            self._global += ["--config", os.fspath(config)]
        for setting in sets:
            self._global += ["--set", setting]
        self._global += list(args)
        self._cwd = cwd
        self._env = dict(env) if env is not None else None
        self._lock = threading.Lock()
        self._next_id = 0
        self._stderr = bytearray()
        try:
            self._process = subprocess.Popen(
                [self._binary, *self._global, "serve", "--stdio"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=self._env,
            )
        except OSError as err:
            raise ServerExited(f"cannot start {self._binary} serve --stdio: {err}") from err
        self._stderr_reader = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_reader.start()

    def __enter__(self) -> "Ptc":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def render(
        self,
        recording: RecordingLike,
        *,
        turns: Optional[int] = None,
        strategy: Optional[str] = None,
        options: Optional[Mapping[str, Any]] = None,
        format: Optional[str] = None,
        model: Optional[str] = None,
        max_tokens: Optional[int] = None,
        cache_placement: Optional[str] = None,
        cache_ttl: Optional[str] = None,
    ) -> Dict[str, Any]:
        """The prompt `recording` sends before turn `turns + 1` (default: after all its turns).

        `recording` is the recording (a dict in ptc's recording format) or the path of a
        recording JSON file. `strategy` defaults to the configured one; `options` are the
        strategy's options. `format` is `"json"` (default: the response holds `messages`),
        `"anthropic"` or `"openai"` (it holds `request`, a ready-to-send request body, shaped by
        `model`, `max_tokens`, and for anthropic `cache_placement` and `cache_ttl`).

        Returns the response: `{"id", "strategy", "turns", "messages" | "request", "stats"}`.
        Raises `RenderError` when the server answers with an error, `ServerExited` when it is
        not running.
        """
        request: Dict[str, Any] = {"recording": _load(recording)}
        for name, value in (
            ("turns", turns),
            ("strategy", strategy),
            ("options", options),
            ("format", format),
            ("model", model),
            ("max_tokens", max_tokens),
            ("cache_placement", cache_placement),
            ("cache_ttl", cache_ttl),
        ):
            if value is not None:
                request[name] = dict(value) if name == "options" else value
        return self.request(request)

    def request(self, request: Mapping[str, Any]) -> Dict[str, Any]:
        """Sends one request as it is (with an `id` added) and returns the response; raises as
        `render` does."""
        with self._lock:
            self._next_id += 1
            request_id = self._next_id
            line = _encode({**request, "id": request_id})
            process = self._process
            if process.stdin is None or process.stdin.closed:
                raise ServerExited("the ptc client is closed")
            try:
                process.stdin.write(line)
                process.stdin.flush()
                answer = process.stdout.readline() if process.stdout else b""
            except (BrokenPipeError, OSError):
                answer = b""
            if not answer:
                raise self._exited("ptc serve stopped before answering")
        try:
            response = json.loads(answer)
        except ValueError as err:
            raise PtcError(f"ptc serve answered with a line that is not JSON: {answer[:200]!r}") from err
        if not isinstance(response, dict) or response.get("id") != request_id:
            raise PtcError(f"ptc serve answered request {request_id} with {str(response)[:200]}")
        error = response.get("error")
        if error is not None:
            raise RenderError(str(error.get("code")), str(error.get("message")), request_id)
        return response

    def strategies(self) -> List[Dict[str, Any]]:
        """The strategies this ptc loads (`ptc strategies --format json`): name, default,
        version, description, file and options."""
        done = subprocess.run(
            [self._binary, *self._global, "strategies", "--format", "json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self._cwd,
            env=self._env,
        )
        if done.returncode != 0:
            raise ServerExited(
                "ptc strategies failed", done.returncode, done.stderr.decode("utf-8", "replace")
            )
        return json.loads(done.stdout)

    @property
    def stderr(self) -> str:
        """The end of what the server wrote on stderr (its warnings, about plugins for one)."""
        return bytes(self._stderr).decode("utf-8", "replace")

    def close(self, timeout: float = 30) -> int:
        """Ends the server (it stops at the end of its input) and returns its exit status."""
        process = self._process
        if process.stdin and not process.stdin.closed:
            try:
                process.stdin.close()
            except OSError:
                pass
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        if process.stdout:
            process.stdout.close()
        self._stderr_reader.join(timeout=5)
        return code

    def _drain_stderr(self) -> None:
        stream = self._process.stderr
        if stream is None:
            return
        for chunk in iter(lambda: stream.read1(4096), b""):
            self._stderr += chunk
            if len(self._stderr) > _STDERR_KEPT:
                del self._stderr[: len(self._stderr) - _STDERR_KEPT]
        stream.close()

    def _exited(self, what: str) -> ServerExited:
        try:
            code = self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        self._stderr_reader.join(timeout=5)
        return ServerExited(what, code, self.stderr)


def _load(recording: RecordingLike) -> Any:
    """The recording itself: `recording`, or the JSON of the file it names."""
    if isinstance(recording, (str, os.PathLike)):
        path = Path(recording)
        try:
            # utf-8-sig: a byte order mark is skipped, as ptc does.
            with path.open(encoding="utf-8-sig") as f:
                return json.load(f)
        except OSError as err:
            raise PtcError(f"cannot read recording {path}: {err}") from err
        except ValueError as err:
            raise PtcError(f"recording {path} is not JSON: {err}") from err
    return recording
