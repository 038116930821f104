"""One line per check for the deployment tests: `ok   TEXT`, or `FAIL TEXT`
and exit 1 at the first failure; summary() prints the closing
`N passed, 0 failed` line. Not thread-safe."""

passed = 0


def check(ok, text):
    global passed
    print(("ok   " if ok else "FAIL ") + text, flush=True)
    if not ok:
        raise SystemExit(1)
    passed += 1


def summary():
    print(f"{passed} passed, 0 failed")
