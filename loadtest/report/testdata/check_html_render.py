#!/usr/bin/env python3
"""ctest: the HTML report renders in headless Chromium with its charts.

Usage: check_html_render.py EDGEFLEET_LOADTEST_BINARY WORK_DIR

Writes a synthetic A/B report with the real binary, then
  1. --dump-dom: the parsed DOM holds every chart as an <svg> element with
     its marks (CDF polylines, bars, rate whiskers);
  2. --screenshot: the PNG (decoded here with zlib, no imaging library) is
     not blank: enough non-white pixels and real variance.
Exits 77 (ctest SKIP_RETURN_CODE) when no Chromium is installed.
"""

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_browser(browser, url, extra, profile):
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
           "--window-size=1200,2000"] + extra + [url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                          check=False)


def decode_png(data):
    """Returns (width, height, channels, rows) for 8-bit RGB/RGBA PNGs."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + b) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 0xFF
        rows.append(line)
        prev = line
    return width, height, channels, rows


def main():
    tool, work = sys.argv[1], sys.argv[2]
    browser = chromium()
    if browser is None:
        print("SKIP: no chromium on PATH")
        return SKIP
    os.makedirs(work, exist_ok=True)
    results = os.path.join(work, "results.json")
    subprocess.run([tool, "synth", "--devices=600", "--seed=3",
                    "--latency-b=1.15", "--effect-class=mid-android",
                    f"--out={results}"], check=True, capture_output=True)
    report = subprocess.run([tool, "report", "--replicates=200",
                             f"--out-dir={work}", results],
                            capture_output=True, text=True, check=False)
    assert report.returncode == 2, (report.returncode, report.stderr)
    html = os.path.join(work, "report.html")
    url = "file://" + os.path.abspath(html)
    failures = []

    with tempfile.TemporaryDirectory() as profile:
        dom = run_browser(browser, url, ["--dump-dom"], profile).stdout
    svgs = re.findall(r'<svg[^>]*class="chart ([a-z-]+)"', dom)
    counts = {kind: svgs.count(kind) for kind in set(svgs)}
    print("charts in DOM:", counts)
    scopes = 8  # overall + 7 synthetic classes
    expected = {"chart-cdf": 2 * scopes, "chart-load": 1, "chart-memory": 1,
                "chart-rate-anr": 1, "chart-rate-oom": 1}
    for kind, n in expected.items():
        if counts.get(kind, 0) != n:
            failures.append(f"{kind}: {counts.get(kind, 0)} in DOM, want {n}")
    for mark, least in (("<polyline", 2 * 2 * scopes), ("<rect", 3 * 2 * scopes),
                        ("<circle", 2 * 2 * scopes)):
        if dom.count(mark) < least:
            failures.append(f"{mark}: {dom.count(mark)} in DOM, want >= {least}")

    png = os.path.join(work, "report.png")
    with tempfile.TemporaryDirectory() as profile:
        run_browser(browser, url, [f"--screenshot={png}"], profile)
    if not os.path.exists(png):
        failures.append("no screenshot written")
    else:
        width, height, channels, rows = decode_png(open(png, "rb").read())
        gray = [sum(r[x:x + 3]) / 3 for r in rows[::4]
                for x in range(0, width * channels, 4 * channels)]
        mean = sum(gray) / len(gray)
        variance = sum((g - mean) ** 2 for g in gray) / len(gray)
        inked = sum(g < 235 for g in gray) / len(gray)
        print(f"screenshot {width}x{height}: mean {mean:.1f}, "
              f"variance {variance:.1f}, non-white {100 * inked:.1f} %")
        if variance < 100 or inked < 0.02:
            failures.append("screenshot looks blank")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
