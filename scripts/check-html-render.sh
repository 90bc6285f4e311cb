#!/usr/bin/env bash
# Renders an HTML report in headless Chromium (Debian's `chromium`) to a PNG and checks that
# the picture is not blank: it must hold many distinct colors, as charts and text do; and that no
# table is wider than the page.
# Usage: bash scripts/check-html-render.sh report.html [out.png]
set -euo pipefail
html="${1:?usage: check-html-render.sh REPORT.html [OUT.png]}"
png="${2:-${html%.html}.png}"
command -v chromium >/dev/null 2>&1 || { echo "chromium is not installed (apt-get install chromium)" >&2; exit 2; }
[ -f "$html" ] || { echo "no such file: $html" >&2; exit 2; }
page="file://$(cd "$(dirname "$html")" && pwd)/$(basename "$html")"
profile="$(mktemp -d "${TMPDIR:-/tmp}/chromium-profile.XXXXXX")"
trap 'rm -rf "$profile"' EXIT
rm -f "$png"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
    --screenshot="$png" --window-size=1280,2000 "$page" >/dev/null 2>&1 || true
[ -s "$png" ] || { echo "chromium wrote no screenshot for $page" >&2; exit 1; }
# No table may be wider than its column at 1280 px (it would scroll, and print cut off): the page
# is loaded again with a probe that marks the tables whose wrapper overflows.
probe="$profile/probe.html"
{
    cat "$html"
    echo '<script>document.documentElement.setAttribute("data-overflow", Array.from(document.querySelectorAll(".table-wrap")).filter(w => w.scrollWidth > w.clientWidth + 1).map(w => { const t = w.querySelector("table"); return t ? (t.getAttribute("data-table") || t.querySelector("caption").textContent) : "?"; }).join("|") || "none");</script>'
} > "$probe"
overflow="$(chromium --headless --no-sandbox --disable-gpu --user-data-dir="$profile" --window-size=1280,2000 \
    --dump-dom "file://$probe" 2>/dev/null | grep -o 'data-overflow="[^"]*"' | head -1 || true)"
[ -n "$overflow" ] || { echo "chromium did not run the layout probe on $page" >&2; exit 1; }
[ "$overflow" = 'data-overflow="none"' ] || { echo "tables wider than the page at 1280 px: $overflow" >&2; exit 1; }
# Count distinct colors with zlib alone (PIL may be missing): 8-bit RGB or RGBA, non-interlaced.
python3 - "$png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, header = 8, b"", None
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    chunk = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR": header = struct.unpack(">IIBBBBB", chunk)
    elif kind == b"IDAT": idat += chunk
    pos += 12 + length
width, height, depth, color, _, _, interlace = header
assert depth == 8 and color in (2, 6) and interlace == 0, f"unsupported PNG: depth {depth} color {color}"
channels = 3 if color == 2 else 4
raw, stride = zlib.decompress(idat), width * channels
previous, colors, pixels_not_white = bytearray(stride), set(), 0
offset = 0
for _ in range(height):
    kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
    offset += 1 + stride
    for i in range(stride):
        a = line[i - channels] if i >= channels else 0
        b, c = previous[i], previous[i - channels] if i >= channels else 0
        if kind == 1: line[i] = (line[i] + a) & 255
        elif kind == 2: line[i] = (line[i] + b) & 255
        elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for i in range(0, stride, channels * 2):  # every other pixel is plenty
        pixel = bytes(line[i:i + 3])
        colors.add(pixel)
        if pixel != b"\xff\xff\xff": pixels_not_white += 1
    previous = line
print(f"{sys.argv[1]}: {width}x{height}, {len(colors)} distinct colors, {pixels_not_white} sampled non-white pixels")
if len(colors) < 16 or pixels_not_white < 1000:
    sys.exit("the rendered page looks blank")
PY
