"""A generated counterexample page in a real browser: headless Chromium (Debian's chromium)
lays the page out, the diagram's arrows have length, and the screenshot shows the red band of
the failing step. The screenshot is kept in tests/docs/artifacts/."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FAILED_BAND = (0xFE, 0xE2, 0xE2)  # the fill of the failing step's band (#fee2e2)


def chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    if not Path(CHROMIUM).exists():
        pytest.fail("headless Chromium is not installed: apt-get install -y chromium (see .ci/run)")
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run",
                           f"--user-data-dir={profile}", *args], capture_output=True, text=True, timeout=120)


def png_pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGB(A) bytes of an 8-bit PNG (enough for Chromium's screenshots)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"unexpected PNG format {depth}/{colour}"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        filt, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if filt == 1:
                line[i] = (line[i] + a) & 255
            elif filt == 2:
                line[i] = (line[i] + b) & 255
            elif filt == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def test_counterexample_page_renders_in_chromium(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "kspec.conformance.cli", "conform", "raft", "--target",
                           "mutant:raft-silent-resign", "--seed", "0", "--out", str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    files = sorted(tmp_path.rglob("*.itf.json"))
    assert files, f"no counterexample written: {proc.stdout} {proc.stderr}"
    page = tmp_path / "counterexample.html"
    proc = subprocess.run([sys.executable, "-m", "kspec.conformance.cli", "explain", str(files[0]), "--html",
                           str(page)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr

    dom = chromium("--dump-dom", page.as_uri(), profile=tmp_path / "profile")
    assert dom.returncode == 0, dom.stderr[-2000:]
    check = re.search(r'<p id="render-check"[^>]*>', dom.stdout)
    assert check, "the page's script did not run"
    attrs = dict(re.findall(r'data-(\w+)="(\d+)"', check.group(0)))
    assert int(attrs["arrows"]) == page.read_text().count('class="seq-arrow') > 0
    assert int(attrs["width"]) > 300 and int(attrs["height"]) > 200
    assert int(attrs["participants"]) == 6  # three replicas, a box at the top and the bottom of each lifeline

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "counterexample.png"
    shot.unlink(missing_ok=True)
    proc = chromium(f"--screenshot={shot}", "--window-size=1400,1000", page.as_uri(), profile=tmp_path / "profile")
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    print(f"screenshot: {shot}")
    width, height, rows = png_pixels(shot)
    assert (width, height) == (1400, 1000)
    channels = len(rows[0]) // width
    band = sum(1 for row in rows for i in range(0, len(row), channels) if tuple(row[i:i + 3]) == FAILED_BAND)
    ink = sum(1 for row in rows for i in range(0, len(row), channels) if max(row[i:i + 3]) < 80)
    # The failing step's band is drawn (thousands of pixels) and there is text and lines on the page.
    assert band > 5000, f"no failing-step band in the screenshot ({band} pixels)"
    assert ink > 5000, f"the screenshot is nearly blank ({ink} dark pixels)"
