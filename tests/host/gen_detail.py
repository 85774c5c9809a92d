#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the --advise fixtures of tests/host: a main file and a detail file
taken at the same moment, for amd64's kmalloc classes and arm64's.

    gen_detail.py FIXTURES_DIR

Each site lists its requests (size, count), how many of them are live and,
for kmem_cache sites, the object size; the allocated bytes follow from the
classes, so the numbers in both files agree exactly.  The expected outputs
in expected/ were checked by hand against these lists (docs/reader.md).
"""
import sys

ARCHES = {
    "amd64": [8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192],
    "arm64": [128, 192, 256, 512, 1024, 2048, 4096, 8192],
}
PAGE = 4096
SIZE_BOUNDS = [8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]
AGE_BOUNDS = [1, 10, 60, 600, 3600]
NOW = 5000

# caller, type, [(request, count)], live (taken from the first requests),
# frees, object size (kmem_cache sites)
SITES = [
    ("sa_test_fixed72+0x1c/0x60 [sa_test]", "kmalloc", [(72, 300)], 100, None),
    ("sa_test_fixed40+0x10/0x40 [sa_test]", "kmalloc", [(40, 1000)], 1000, None),
    ("sa_test_fixed200+0x10/0x40 [sa_test]", "kmalloc", [(200, 50)], 10, None),
    ("sa_test_fixed1100+0x10/0x40 [sa_test]", "kmalloc", [(1100, 4)], 0, None),
    ("sa_test_fixed64+0x10/0x40 [sa_test]", "kmalloc", [(64, 500)], 20, None),
    ("sa_test_fixed9000+0x10/0x40 [sa_test]", "kmalloc", [(9000, 2)], 1, None),
    ("sa_test_cache_alloc+0x1c/0x50 [sa_test]", "cache:sa_test_cache", [(200, 40)], 20, 256),
    ("alloc_inode+0x4f/0x120", "cache:inode_cache", [(600, 128)], 64, 600),
    ("sock_alloc_inode+0x1e/0x90", "cache:sock_inode_cache", [(596, 16)], 8, 600),
    ("sa_test_var+0x30/0x90 [sa_test]", "kmalloc",
     [(400, 60), (12, 10), (30, 20), (600, 10)], 5, None),
    ("__d_alloc+0x22/0x1d0", "mixed", [(32, 3), (40, 4), (100, 2), (192, 1)], 3, None),
]


def alloc_size(classes, n):
    for c in classes:
        if c >= n:
            return c
    b = PAGE
    while b < n:
        b <<= 1
    return b


def bucket(n):
    for i, b in enumerate(SIZE_BOUNDS):
        if n <= b:
            return i
    return len(SIZE_BOUNDS)


def write(arch, out):
    classes = ARCHES[arch]
    main_rows, detail_rows = [], []
    sums = dict(total=0, req=0, live=0, live_req=0, objs=0, allocs=0, frees=0)
    for caller, typ, reqs, live_n, objsize in SITES:
        total = req = live = live_req = allocs = 0
        sizes = [0] * 12
        left = live_n
        for n, count in reqs:
            a = objsize if objsize else alloc_size(classes, n)
            total += a * count
            req += n * count
            allocs += count
            sizes[bucket(n)] += count
            k = min(left, count)
            live += a * k
            live_req += n * k
            left -= k
        objs = live_n
        frees = allocs - objs
        main_rows.append("%11d %8d %8d %8d %8d %6d %8d %13s %s %s" % (
            total, total - req, req, live, live_req, objs, total,
            "%d/%d" % (allocs, frees), typ, caller))
        oldest = 30 if objs else 0
        ages = [0, 0, objs, 0, 0, 0]
        rmin = min(n for n, _ in reqs)
        rmax = max(n for n, _ in reqs)
        detail_rows.append(" ".join(str(x) for x in
                                    [objs, live, live_req, oldest, live * oldest] + ages +
                                    [rmin, rmax] + sizes) + " %s %s" % (typ, caller))
        for k, v in (("total", total), ("req", req), ("live", live),
                     ("live_req", live_req), ("objs", objs), ("allocs", allocs),
                     ("frees", frees)):
            sums[k] += v
    with open("%s/advise_%s.txt" % (out, arch), "w") as f:
        f.write("slab_account - version: 1.1\nstate: stopped\n")
        f.write("total bytes allocated: %d\n" % sums["total"])
        f.write("total bytes requested: %d\n" % sums["req"])
        f.write("slack bytes allocated: %d\n" % (sums["total"] - sums["req"]))
        f.write("current bytes allocated: %d\n" % sums["live"])
        f.write("current bytes requested: %d\n" % sums["live_req"])
        f.write("current objects: %d\n" % sums["objs"])
        f.write("number of allocs: %d\n" % sums["allocs"])
        f.write("number of frees: %d\n" % sums["frees"])
        f.write("number of callers: %d\n" % len(SITES))
        f.write("#      total    slack      req     live live_req   objs     peak  allocs/frees type caller\n")
        f.write("".join(r + "\n" for r in main_rows))
    with open("%s/advise_%s_detail.txt" % (out, arch), "w") as f:
        f.write("slab_account detail - version: 1.0\n")
        f.write("now: %d\npage size: %d\n" % (NOW, PAGE))
        f.write("kmalloc classes: %s\n" % " ".join(map(str, classes)))
        f.write("age bounds: %s\n" % " ".join(map(str, AGE_BOUNDS)))
        f.write("size bounds: %s\n" % " ".join(map(str, SIZE_BOUNDS)))
        f.write("objects scanned: %d\n" % sums["objs"])
        f.write("# objs bytes req oldest byte_secs age<1s age<10s age<1m age<10m age<1h older "
                "req_min req_max size<=8 size<=16 size<=32 size<=64 size<=128 size<=256 "
                "size<=512 size<=1K size<=2K size<=4K size<=8K size>8K type caller\n")
        f.write("".join(r + "\n" for r in detail_rows))


for arch in ARCHES:
    write(arch, sys.argv[1])
