"""A client of `ptc serve --stdio`, as an agent written in Python would use it.

Usage: serve_client.py PTC RECORDING.json; exits 0 when every check holds.
"""
import json
import subprocess
import sys

ptc, recording_path = sys.argv[1], sys.argv[2]
with open(recording_path, encoding="utf-8") as f:
    recording = json.load(f)

server = subprocess.Popen(
    [ptc, "serve", "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
)


def ask(request):
    line = request if isinstance(request, str) else json.dumps(request)
    server.stdin.write(line + "\n")
    server.stdin.flush()
    return json.loads(server.stdout.readline())


first = ask({"id": 1, "recording": recording, "turns": 2})
assert first["id"] == 1, first
assert first["strategy"] == "single-user-coalesced", first
assert [m["role"] for m in first["messages"]] == ["system", "user"], first
assert first["messages"][1]["content"].endswith("Turns left: 6"), first
assert first["stats"]["turns_compressed"] == 2, first

bad = ask("this is not JSON")
assert bad["error"]["code"] == "bad_request" and bad["id"] is None, bad

no_mission = ask({"id": "x", "recording": {"turns": []}})
assert no_mission["error"]["code"] == "bad_recording" and no_mission["id"] == "x", no_mission
assert "missing field `mission`" in no_mission["error"]["message"], no_mission

unknown = ask({"id": 4, "recording": recording, "strategy": "nope"})
assert unknown["error"]["code"] == "unknown_strategy", unknown

window0 = ask({"id": 5, "recording": recording, "turns": 2, "strategy": "rolling-window", "options": {"window": 0}})
assert window0["messages"] == first["messages"], window0

too_far = ask({"id": 6, "recording": recording, "turns": 99})
assert too_far["error"]["code"] == "bad_request", too_far

# The server is still there after every bad request.
again = ask({"id": 7, "recording": recording})
assert again["turns"] == len(recording["turns"]), again

server.stdin.close()
assert server.wait(timeout=30) == 0
print("ok")
