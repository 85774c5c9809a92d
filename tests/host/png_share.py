#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""png_share.py PNG R,G,B [R,G,B ...]: print, per colour, the share (0..1,
three decimals) of the PNG's pixels within 12 of it in every channel, then
the share of pixels that are not white.  Plain Python (8-bit RGB/RGBA PNGs,
as Chromium's --screenshot writes them)."""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat = 8, b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and ctype in (2, 6), 'not 8-bit RGB(A)'
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, out = zlib.decompress(idat), w * bpp, None, []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        prev = prev or bytearray(stride)
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.extend(tuple(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return out


px = pixels(sys.argv[1])
for arg in sys.argv[2:]:
    want = tuple(int(v) for v in arg.split(','))
    n = sum(1 for p in px if all(abs(p[i] - want[i]) <= 12 for i in range(3)))
    print('%.3f' % (n / len(px)))
print('%.3f' % (sum(1 for p in px if p != (255, 255, 255)) / len(px)))
