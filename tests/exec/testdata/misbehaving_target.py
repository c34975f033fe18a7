"""A share target that follows the stdio adapter protocol until step ``--at``, then misbehaves.

Usage: misbehaving_target.py MODE [--at N]. Every step before N answers a fixed observation.
Modes (what happens at step N): good, exit (status 3, after a stderr line), hang, partial (half a
line, then hang), malformed (a line that is not JSON), not-object, wrong-id, error (an error
answer, then carries on), no-observation, spawn-hang (starts a grandchild, then hangs),
version (hello answers version 2), linger (ignores close and EOF, never exits), slow-hello
(answers hello after --hello-seconds, default 6, then behaves as good).
"""

import json
import subprocess
import sys
import time

mode = sys.argv[1]
at = int(sys.argv[sys.argv.index("--at") + 1]) if "--at" in sys.argv else 1
steps = 0


def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


while True:
    line = sys.stdin.readline()
    if not line:
        if mode == "linger":
            time.sleep(3600)
        sys.exit(0)
    req = json.loads(line)
    rid = req["id"]
    if req["op"] == "hello":
        if mode == "slow-hello":
            hold = sys.argv.index("--hello-seconds") + 1 if "--hello-seconds" in sys.argv else 0
            time.sleep(float(sys.argv[hold]) if hold else 6.0)
        hello = {"id": rid, "version": 2 if mode == "version" else 1, "protocols": ["share"]}
        if mode in ("declines", "declines-badly"):  # the categories it declines (ADAPTER hello)
            hello["unsupported"] = ["summary"] if mode == "declines" else "summary"
        answer(hello)
    elif req["op"] == "start":
        answer({"id": rid, "outputs": [], "observation": {"node": req["node"], "steps": 0}})
    elif req["op"] == "close":
        if mode == "linger":
            continue
        answer({"id": rid})
        if "node" not in req:
            sys.exit(0)
    elif req["op"] == "step":
        steps += 1
        ok = {"id": rid, "outputs": [req["input"]], "observation": {"node": req["node"], "steps": steps}}
        if steps != at or mode in ("good", "linger", "version", "slow-hello", "declines"):
            answer(ok)
        elif mode == "exit":
            print("boom: giving up on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        elif mode == "hang":
            print("about to hang", file=sys.stderr, flush=True)
            time.sleep(3600)
        elif mode == "partial":
            sys.stdout.write('{"id": ' + str(rid) + ', "outputs": [')
            sys.stdout.flush()
            time.sleep(3600)
        elif mode == "spawn-hang":
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
            print(f"grandchild {child.pid}", file=sys.stderr, flush=True)
            time.sleep(3600)
        elif mode == "malformed":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
        elif mode == "not-object":
            answer([rid, "outputs"])
        elif mode == "wrong-id":
            answer({**ok, "id": rid + 1})
        elif mode == "error":
            answer({"id": rid, "error": "WriteRequest is not implemented"})
        elif mode == "no-observation":
            answer({"id": rid, "outputs": []})
        else:
            raise SystemExit(f"unknown mode {mode}")
