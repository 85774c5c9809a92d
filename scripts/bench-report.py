#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py OUT.json RUN_NAME:DIR... -- the table of `make bench`.

Reads the result lines the guest's bench/guest/run.sh wrote to DIR/ktap.log
(one DIR per boot: with -icount and without), prints one table per boot
with the six configurations side by side and the issues' targets, and
writes everything to OUT.json.  The runs named map-* are the peers' boot
(bench/guest/peers.sh on the MAP kernel): one table of the seven peers'
configurations, the reads of each tool's output, the ratios of issue 17
and what /proc/allocinfo shows of sa_bench's paths beside slab_account.
The run named scale is two boots (DIR/cpus and DIR/ram,
bench/guest/scale.sh): one table of what many possible CPUs and much RAM
do to the module's memory, reads and dropped objects.
Timing never fails the benchmark.
"""
import json
import sys

# hooks=0: slab_account active with its kprobes off (module parameter
# hooks=0): active minus hooks=0 is what the kprobes themselves cost.
CONFIGS = ["baseline", "floor", "stopped", "active", "hooks=0", "ftrace"]
# The peers' boot: MAP compiled in and off, MAP on, slab_account stopped
# and active, the eBPF peer's two modes, ftrace.
PEERS = ["baseline", "map", "stopped", "active", "ebpf-sums",
         "ebpf-pointers", "ftrace"]
SIZES = [8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
# Context rows (issue 33, bench/guest/run.sh): the pair at sab_shape_one's
# own call site with slab_account loaded again, uncaptured, captured, and
# under each split.
CTX_CONFIGS = ["uncaptured", "captured", "split=task", "split=cgroup",
               "split=node"]


# The shapes of call site (issue 35): bench/kmod/sa_bench.c's shape KIND.
# Their rows show the median of the runs.
SHAPES = [("one", "shape one: kmalloc(64)+kfree"),
          ("vary", "shape vary: kmalloc(8..520)+kfree"),
          ("big", "shape big: kmalloc(8192)+kfree"),
          ("burst", "shape burst: 64 mixed held, per pair"),
          ("cache", "shape cache: 200 B cache alloc+free")]

# The syscall mix's kinds of operation (bench/guest/sabench.c), in the
# order of its output line.
MIX_KINDS = ["create", "stat", "unlink", "pipe", "socketpair", "fork"]


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def result_lines(f, meta):
    """The guest's result lines (run.sh, scale.sh): SAB_FAIL and SAB_DONE
    go to meta; M and R lines are yielded as their words."""
    for line in f:
        w = line.split()
        if not w:
            continue
        if w[0] == "SAB_FAIL":
            meta["fail"].append(" ".join(w[1:]))
        elif w[0] == "SAB_DONE":
            meta["done"] = True
        elif w[0] in ("M", "R"):
            yield w


def parse(path, configs):
    res = {c: {} for c in configs}
    meta = {"read": [], "fail": [], "readcost": {}, "allocinfo": [],
            "sa_row": []}
    with open(path, errors="replace") as f:
        for w in result_lines(f, meta):
            if w[0] == "M" and len(w) >= 2:
                if w[1] == "read":
                    k, rows, sites, _, reps, nbytes, nrows, tmin, tmed = w[2:11]
                    meta["read"].append({
                        "generated_sites": int(k), "sab_rows": int(rows),
                        "call_sites": int(sites), "rows": int(nrows),
                        "bytes": int(nbytes), "min_ns": int(tmin),
                        "median_ns": int(tmed)})
                elif w[1] == "readcost":
                    meta["readcost"][w[2]] = w[3:]
                elif w[1] in ("allocinfo", "sa_row"):
                    meta[w[1]].append(" ".join(w[2:]))
                else:
                    meta[w[1]] = w[2:]
            elif w[0] == "R" and len(w) >= 3 and w[1] in res:
                cfg, kind, v = w[1], w[2], w[3:]
                r = res[cfg]
                if kind == "pair":
                    r["pair %s" % v[0]] = int(v[2]) / int(v[1])
                elif kind in ("batch", "cbatch"):
                    n = int(v[1])
                    tag = "batch %s" % v[0] if kind == "batch" else "cbatch"
                    r[tag + " alloc"] = int(v[2]) / n
                    r[tag + " free"] = int(v[3]) / n
                elif kind == "shape":
                    # Repeated (common.sh, shapes): the median counts, the
                    # runs are kept for the spread.
                    tag = "shape " + v[0]
                    runs = r.get(tag + " runs", []) + [int(v[2]) / int(v[1])]
                    r[tag + " runs"] = runs
                    r[tag] = median(runs)
                elif kind == "cpair":
                    r["cpair"] = int(v[2]) / int(v[1])
                elif kind == "pages":
                    r["pages"] = int(v[2]) / int(v[1])
                elif kind == "bulk":
                    # per object: N objects in bulks of 16
                    n = int(v[1])
                    r["bulk alloc"] = int(v[2]) / n
                    r["bulk free"] = int(v[3]) / n
                elif kind == "realloc":
                    # kmalloc(40) + krealloc(60 or 400) + kfree, per op
                    n = int(v[3])
                    r["realloc inplace"] = int(v[4]) / n
                    r["realloc move"] = int(v[5]) / n
                elif kind == "remote":
                    n = int(v[1])
                    r["remote alloc"] = int(v[2]) / n
                    r["remote free"] = int(v[3]) / n
                elif kind in ("par", "opar"):
                    # Repeated: the fastest run counts (host time only
                    # ever adds to a run, see run.sh); all are kept.
                    n, ncpu = int(v[1]), int(v[2])
                    span, tsum = int(v[3]), int(v[4])
                    run = {"n": n, "cpus": ncpu, "span_ns": span,
                           "sum_ns": tsum, "max_ns": int(v[5])}
                    tag = "%s %d" % (kind, ncpu)
                    old = r.get(tag)
                    runs = (old["runs"] if old else []) + [run]
                    key = "span_ns" if ncpu == 1 else "sum_ns"
                    best = min(runs, key=lambda x: x[key])
                    r[tag] = dict(best, runs=runs)
                elif kind == "mix":
                    # Repeated in the peers' boot: the median counts,
                    # the spread is (max - min) / median.
                    it, ops, ns = int(v[0]), int(v[1]), int(v[2])
                    runs = r.get("mix runs", []) + [ops * 1e9 / ns]
                    r["mix runs"] = runs
                    r["mix ops/s"] = median(runs)
                    r["mix spread %"] = 100 * (max(runs) - min(runs)) / \
                        median(runs)
                    # Each kind's ns per operation, its median over the
                    # runs: the kinds scatter apart (fork the most).
                    kr = r.setdefault("mix kind runs", {})
                    for k, x in zip(MIX_KINDS, v[3:9]):
                        kr.setdefault(k, []).append(int(x) / it)
                        r["mix " + k] = median(kr[k])
    return res, meta


def per_cpu(par, icount):
    """ns per pair and CPU: with icount the guest clock counts the
    instructions of all vCPUs together, so the span is the CPU time."""
    if not par:
        return None
    ops = par["n"] * par["cpus"]
    if icount or par["cpus"] == 1:
        return par["span_ns"] / ops
    return par["sum_ns"] / ops


def rows_of(res, icount):
    rows = []
    for s in SIZES:
        label = "kmalloc(%d)+kfree" % s
        if s == 16384:
            label += " (page alloc)"
        rows.append((label, "pair %d" % s))
    for s in SIZES:
        rows.append(("%d x kmalloc(%d), per alloc" % (0, s), "batch %d alloc" % s))
        rows.append(("  then kfree, per free", "batch %d free" % s))
    rows += [("kmem_cache_alloc+free (200 B cache)", "cpair"),
             ("cache: N allocs, per alloc", "cbatch alloc"),
             ("  then frees, per free", "cbatch free"),
             ("cache: alloc_bulk of 16, per object", "bulk alloc"),
             ("  then free_bulk of 16, per object", "bulk free"),
             ("kmalloc(40)+krealloc(60)+kfree, in place", "realloc inplace"),
             ("  the same to krealloc(400): moved", "realloc move"),
             ("remote: kmalloc(64) on CPU A", "remote alloc"),
             ("  kfree on CPU B, per free", "remote free")]
    rows += [(label, "shape " + k) for k, label in SHAPES]
    for c in CONFIGS:
        for key in list(res[c]):
            if key.startswith("par "):
                res[c]["pair64 cpu " + key[4:]] = per_cpu(res[c][key], icount)
            elif key.startswith("opar "):
                res[c]["pair64 own " + key[5:]] = per_cpu(res[c][key], icount)
    ncpus = sorted({int(k[4:]) for c in CONFIGS for k in res[c]
                    if k.startswith("par ")})
    for n in ncpus:
        rows.append(("pair(64), %d CPU%s at once, per CPU" %
                     (n, "" if n == 1 else "s"), "pair64 cpu %d" % n))
        if any("opar %d" % n in res[c] for c in CONFIGS):
            rows.append(("  each CPU at a call site of its own",
                         "pair64 own %d" % n))
    rows.append(("syscall mix, ops/s (higher is better)", "mix ops/s"))
    return rows


def fmt(v):
    if v is None:
        return "-"
    if v >= 10000:
        return "%.0f" % v
    return "%.1f" % v


def table(name, res, meta, icount, nbatch):
    out = []
    rows = rows_of(res, icount)
    head = "%-40s" % name + "".join("%10s" % c for c in CONFIGS) + \
        "%9s %9s %9s %9s %9s" % ("act-base", "act-hk0", "flr-base",
                                 "ftr-base", "act/flr")
    out.append(head)
    out.append("-" * len(head))
    for label, key in rows:
        label = label.replace("0 x", "%s x" % nbatch)
        vals = [res[c].get(key) for c in CONFIGS]
        line = "%-40s" % label + "".join("%10s" % fmt(v) for v in vals)
        b, f, s, a, h, t = vals
        if None not in (a, b, f, t):
            if key == "mix ops/s":
                line += "%8.2f%% %8s %8.2f%% %8.2f%%" % (
                    100 * (a - b) / b,
                    "-" if h is None else "%.2f%%" % (100 * (a - h) / h),
                    100 * (f - b) / b, 100 * (t - b) / b)
            else:
                ratio = (a - b) / (f - b) if f - b > 0.5 else None
                line += "%9s %9s %9s %9s %9s" % (
                    fmt(a - b), "-" if h is None else fmt(a - h),
                    fmt(f - b), fmt(t - b),
                    "%.2fx" % ratio if ratio else "-")
        out.append(line)
    return out


def targets(res, meta, icount):
    t = {}
    b, f = res["baseline"], res["floor"]
    a, s, tr = res["active"], res["stopped"], res["ftrace"]
    if all("pair 64" in x for x in (a, b, f, s, tr)):
        d = a["pair 64"] - b["pair 64"]
        t["active_extra_ns"] = {"value": d, "target": "<= 150", "met": d <= 150}
        fd = f["pair 64"] - b["pair 64"]
        r = d / fd if fd > 0 else None
        t["active_over_floor_extra"] = {"value": r, "target": "<= 4",
                                        "met": r is not None and r <= 4}
        td = tr["pair 64"] - b["pair 64"]
        r = d / td if td > 0 else None
        t["active_over_ftrace_extra"] = {"value": r, "target": "<= 0.125",
                                         "met": r is not None and r <= 0.125}
        d = s["pair 64"] - b["pair 64"]
        t["stopped_extra_ns"] = {"value": d, "target": "<= 5", "met": d <= 5}
    # The kprobed paths: what an object costs over no probe at all, and
    # what the kprobes cost over slab_account without them (hooks=0).
    h = res["hooks=0"]
    for key, name in (("bulk alloc", "bulk_alloc"), ("bulk free", "bulk_free"),
                      ("realloc inplace", "krealloc_inplace"),
                      ("realloc move", "krealloc_moved"),
                      ("pair 64", "pair64")):
        if key in a and key in b and key != "pair 64":
            t[name + "_extra_ns"] = {"value": a[key] - b[key],
                                     "target": "(context)", "met": True}
        if key in a and key in h:
            t[name + "_hooks_ns"] = {"value": a[key] - h[key],
                                     "target": "(context)", "met": True}
    if "mix ops/s" in a and "mix ops/s" in b:
        r = 100 * (b["mix ops/s"] - a["mix ops/s"]) / b["mix ops/s"]
        t["mix_slowdown_pct"] = {"value": r, "target": "<= 3", "met": r <= 3}
    reads = [x for x in meta["read"] if x["generated_sites"] >= 5000]
    if reads:
        r = reads[0]
        t["read_5000_ms"] = {"value": r["min_ns"] / 1e6, "rows": r["rows"],
                             "target": "<= 50", "met": r["min_ns"] <= 50e6}
    reads = [x for x in meta["read"] if x["generated_sites"] >= 10000]
    if reads:
        r = reads[0]
        t["read_10000_ms"] = {"value": r["min_ns"] / 1e6, "rows": r["rows"],
                              "target": "<= 50", "met": r["min_ns"] <= 50e6}
    pts = [x for x in meta["read"] if x["rows"]]
    if len(pts) >= 2:
        lo, hi = pts[0], pts[-1]
        per_lo, per_hi = lo["min_ns"] / lo["rows"], hi["min_ns"] / hi["rows"]
        r = per_hi / per_lo
        t["read_linear"] = {"value": r, "target": "ns/row at most rows within"
                            " 1.5x of ns/row at fewest rows", "met": r <= 1.5}
    if "table_memory" in meta and "object_capacity" in meta:
        v = int(meta["table_memory"][0]) / int(meta["object_capacity"][0])
        t["bytes_per_object"] = {"value": v, "target": "<= 32", "met": v <= 32}
    one = a.get("pair64 cpu 1")
    many = [k for k in a if k.startswith("pair64 cpu ") and k != "pair64 cpu 1"]
    if one and many:
        m = a[many[0]]
        r = 100 * (m - one) / one
        t["percpu_scaling_pct"] = {"value": r, "cpus": many[0][11:],
                                   "target": "<= 15", "met": abs(r) <= 15}
        # The same for the configurations that share nothing (the host's
        # own part), and what sharing the call site costs slab_account.
        for name in ("baseline", "floor"):
            c = res[name]
            if c.get("pair64 cpu 1") and c.get(many[0]):
                v = 100 * (c[many[0]] - c["pair64 cpu 1"]) / c["pair64 cpu 1"]
                t["percpu_scaling_pct_" + name] = {"value": v,
                                                   "target": "(context)",
                                                   "met": True}
        own = a.get("pair64 own " + many[0][11:])
        if own:
            v = 100 * (m - own) / own
            t["shared_site_cost_pct"] = {"value": v, "target": "(context)",
                                         "met": True}
    return t


def memory(meta):
    out = []
    if "table_memory" not in meta:
        return out
    tm = int(meta["table_memory"][0])
    oc = int(meta["object_capacity"][0])
    sc = int(meta["site_capacity"][0])
    b = dict(zip(meta["mem_before"][::2], map(int, meta["mem_before"][1::2])))
    a = dict(zip(meta["mem_after"][::2], map(int, meta["mem_after"][1::2])))
    out.append("module memory: table memory %d bytes (%.1f MiB) for %d objects"
               " and %d call sites = %.1f bytes per object slot"
               % (tm, tm / 2**20, oc, sc, tm / oc))
    ot = meta.get("object_table", [""])
    if ot and ot[0].isdigit():
        ob = int(ot[0])
        out.append("  of which the object table %d bytes (%.1f bytes per"
                   " object slot), the call sites %d bytes (%.0f per site)"
                   % (ob, ob / oc, tm - ob, (tm - ob) / sc))
    dv = (a["VmallocUsed:"] - b["VmallocUsed:"]) * 1024
    df = (b["MemFree:"] - a["MemFree:"]) * 1024
    out.append("measured at insmod: VmallocUsed +%d bytes, MemFree -%d bytes"
               " (%.1f bytes per object slot; includes module text)"
               % (dv, df, df / oc))
    if "hold" in meta:
        h = meta["hold"]
        out.append("holding %s kmalloc(64) objects: %s live in their row,"
                   " dropped +%s (tables are preallocated: no growth)"
                   % (h[0], h[1], h[2]))
    return out


PEER_ROWS = [("kmalloc(64)+kfree", "pair 64"),
             ("kmalloc(256)+kfree", "pair 256"),
             ("0 x kmalloc(64), per alloc", "batch 64 alloc"),
             ("  then kfree, per free", "batch 64 free"),
             ("kmem_cache_alloc+free (200 B cache)", "cpair"),
             ("cache: N allocs, per alloc", "cbatch alloc"),
             ("  then frees, per free", "cbatch free"),
             ("alloc_pages(0)+__free_pages", "pages"),
             ("cache: alloc_bulk of 16, per object", "bulk alloc"),
             ("  then free_bulk of 16, per object", "bulk free"),
             ("kmalloc(40)+krealloc(60)+kfree, in place", "realloc inplace"),
             ("  the same to krealloc(400): moved", "realloc move")] + \
    [(label, "shape " + k) for k, label in SHAPES] + \
    [("syscall mix, ops/s, median", "mix ops/s"),
     ("  its spread, % of the median", "mix spread %")] + \
    [("  mix: %s, ns per op, median" % k, "mix " + k) for k in MIX_KINDS]
SHORT = {"baseline": "base", "map": "map", "stopped": "stopped",
         "active": "active", "ebpf-sums": "bpf-sums",
         "ebpf-pointers": "bpf-ptrs", "ftrace": "ftrace"}


def peers_table(res, nbatch):
    """The peers side by side, their extra over the baseline (for the
    mix: the slowdown in %), and ebpf-pointers' and MAP's extra over
    slab_account active's."""
    out = []
    extra = [c for c in PEERS if c != "baseline"]
    head = "%-40s" % "workload" + "".join("%10s" % SHORT[c] for c in PEERS) \
        + " |" + "".join("%10s" % ("+" + SHORT[c]) for c in extra) \
        + "%10s %9s" % ("ptrs/act", "act/map")
    out.append(head)
    out.append("-" * len(head))
    b = res["baseline"]
    for label, key in PEER_ROWS:
        label = label.replace("0 x", "%s x" % nbatch)
        vals = [res[c].get(key) for c in PEERS]
        line = "%-40s" % label + "".join("%10s" % fmt(v) for v in vals) + " |"
        if key == "mix spread %":
            out.append(line)
            continue
        d = {}
        for c in extra:
            v, bv = res[c].get(key), b.get(key)
            if v is None or bv is None:
                line += "%10s" % "-"
                continue
            if key == "mix ops/s":
                d[c] = 100 * (bv - v) / bv
                line += "%9.2f%%" % d[c]
            else:
                d[c] = v - bv
                line += "%10s" % fmt(d[c]) if d[c] >= 0 else \
                    "%10s" % ("-" + fmt(-d[c]))

        def ratio(x, y):
            if x not in d or y not in d or d[x] <= 0.5 or d[y] <= 0.5 or \
                    key == "mix ops/s":
                return "-"
            return "%.2fx" % (d[x] / d[y])
        line += "%10s %9s" % (ratio("ebpf-pointers", "active"),
                              ratio("active", "map"))
        out.append(line)
    return out


def peers_targets(res):
    """Issue 17's targets on the pair: slab_account active's extra cost
    per kmalloc+kfree pair against eBPF with pointers' (3-10x less
    expected) and against MAP's (within 2x); the mix slowdowns."""
    t = {}
    b, a = res["baseline"], res["active"]
    if "pair 64" not in b or "pair 64" not in a:
        return t
    da = a["pair 64"] - b["pair 64"]
    t["active_extra_ns"] = {"value": da, "target": "(context)", "met": True}
    for c, name in (("map", "map"), ("ebpf-pointers", "ebpf_pointers"),
                    ("ebpf-sums", "ebpf_sums"), ("ftrace", "ftrace")):
        if "pair 64" in res[c]:
            t[name + "_extra_ns"] = {"value": res[c]["pair 64"] - b["pair 64"],
                                     "target": "(context)", "met": True}
    p = t.get("ebpf_pointers_extra_ns")
    if p and da > 0:
        r = p["value"] / da
        t["ebpf_pointers_over_active"] = {"value": r, "target": ">= 3",
                                          "met": r >= 3}
    m = t.get("map_extra_ns")
    if m and m["value"] > 0:
        r = da / m["value"]
        t["active_over_map"] = {"value": r, "target": "<= 2", "met": r <= 2}
    for c in PEERS[1:]:
        if "mix ops/s" in res[c] and "mix ops/s" in b:
            r = 100 * (b["mix ops/s"] - res[c]["mix ops/s"]) / b["mix ops/s"]
            t["mix_slowdown_pct_" + c] = {
                "value": r, "met": c != "active" or r <= 3,
                "target": "<= 3" if c == "active" else "(context)"}
    return t


def shapes_report(res, configs):
    """Each shape's extra per pair over the baseline under each of
    @configs: the median of its runs less the baseline's median, the
    spread of its runs (max - min), and the extra over the one-size
    pair's."""
    b = res["baseline"]
    out, doc = [], {}
    if "shape one" not in b:
        return out, doc
    head = "%-44s" % "shape (extra guest ns per pair)"
    for c in configs:
        head += "%10s %8s %8s" % (c, "spread", "/one")
    out.append(head)
    out.append("-" * len(head))
    for k, label in SHAPES:
        line = "%-44s" % label
        for c in configs:
            r = res.get(c, {})
            runs = r.get("shape %s runs" % k)
            if not runs or "shape " + k not in b:
                line += "%10s %8s %8s" % ("-", "-", "-")
                continue
            extra = r["shape " + k] - b["shape " + k]
            one = r.get("shape one", 0) - b["shape one"]
            spread = max(runs) - min(runs)
            ratio = extra / one if one > 0.5 else None
            doc.setdefault(c, {})[k] = {
                "extra_median": extra, "spread": spread,
                "over_one": ratio, "runs": runs,
                "baseline_runs": b.get("shape %s runs" % k)}
            line += "%10s %8s %8s" % (fmt(extra), fmt(spread),
                                      "-" if ratio is None else
                                      "%.2fx" % ratio)
        out.append(line)
    return out, doc


def print_shapes(res, configs):
    lines, doc = shapes_report(res, configs)
    if lines:
        print()
        print("shapes of call site: extra per pair, median of the runs; spread"
              " = max - min of the runs; /one = over the one-size pair's")
        for line in lines:
            print(line)
    return doc


def ctx_report(res, meta):
    """The context rows' cost: each configuration's pair at its own call
    site (the median of its runs), the extra over the uncaptured one, the
    spread of its runs; and the memory a stack and a context row take,
    from the header's figures (run.sh's M ctx_* lines: table memory, call
    site capacity, stack memory, stack capacity, stacks, context rows,
    captured sites)."""
    out, doc = [], {}
    u = res.get("uncaptured", {}).get("shape one")
    if u is None:
        return out, doc
    out.append("%-14s %10s %10s %8s" % ("context rows", "ns/pair",
                                         "extra", "spread"))
    for c in CTX_CONFIGS:
        r = res.get(c, {})
        runs = r.get("shape one runs")
        if not runs:
            why = " ".join(meta.get("ctx_" + c, [])) or "not run"
            out.append("%-14s %10s  (%s)" % (c, "-", why))
            continue
        m = r["shape one"]
        doc[c] = {"ns_per_pair": m, "extra": m - u, "runs": runs}
        out.append("%-14s %10s %10s %8s" % (c, fmt(m), fmt(m - u),
                                             fmt(max(runs) - min(runs))))
    a = res.get("active", {}).get("shape one")
    if a is not None:
        out.append("(the active configuration's same pair, loaded once at"
                   " boot: %s)" % fmt(a))

    def nums(key):
        v = meta.get(key)
        return [int(x) for x in v] if v and all(
            x.isdigit() for x in v) and len(v) == 7 else None
    cap, unc = nums("ctx_captured"), nums("ctx_uncaptured")
    if cap and cap[3]:
        per = cap[2] / cap[3]
        doc["stack_bytes"] = per
        out.append("a stack: %d bytes of stack memory for %d stacks = %.0f"
                   " bytes each" % (cap[2], cap[3], per))
        if unc:
            doc["first_capture_bytes"] = cap[0] - unc[0]
            out.append("the first capture allocated %d bytes of table"
                       " memory (the stack table and the context table's"
                       " keys)" % (cap[0] - unc[0]))
        out.append("captured: %d stack(s), %d context row(s), %d captured"
                   " site(s)" % (cap[4], cap[5], cap[6]))
    ot = meta.get("object_table", [""])
    if cap and ot and ot[0].isdigit():
        site = (cap[0] - cap[2] - int(ot[0])) / cap[1]
        doc["site_slot_bytes"] = site
        out.append("a context row (a stack row too) takes a slot of the"
                   " call-site table: %.0f bytes per slot (table memory"
                   " less the object table and the stacks, per slot: the"
                   " context table's key included)" % site)
    task = nums("ctx_split=task")
    if task and unc:
        keys = (task[0] - unc[0]) / task[1]
        doc["split_key_bytes"] = keys
        out.append("with a split, the context table's keys: %d bytes more"
                   " table memory at load than without, %.0f per call-site"
                   " slot" % (task[0] - unc[0], keys))
    for c in CTX_CONFIGS[2:]:
        v = nums("ctx_" + c)
        if v:
            out.append("%s: %d context row(s) after its runs" % (c, v[5]))
    return out, doc


def print_targets(name, t):
    print()
    print("targets (%s):" % name)
    for k, v in t.items():
        val = v["value"]
        val = "-" if val is None else "%.3f" % val
        if v["target"] == "(context)":
            print("  %-30s %8s  (no target: context)" % (k, val))
            continue
        print("  %-30s %8s  target %-10s %s" % (
            k, val, v["target"] if len(v["target"]) < 11 else "(see json)",
            "met" if v["met"] else "MISSED"))


def peers_report(name, d, icount):
    res, meta = parse(d + "/ktap.log", PEERS)
    nb = meta.get("sizes", ["?", "?"])[1]
    title = ("with -icount shift=0,sleep=off (guest ns = instructions)"
             if icount else "without icount (guest ns = host time, TCG)")
    print()
    print("== the peers, %s, %s vCPUs, kernel %s" % (
        title, meta.get("cpus", ["?"])[0], meta.get("kernel", ["?"])[0]))
    print("   guest ns per operation (lower is better) unless noted; the mix:"
          " median of %s runs per configuration"
          % (meta.get("sizes", ["?"] * 4) + ["?"])[3])
    print()
    for line in peers_table(res, nb):
        print(line)
    print()
    print("reading each tool's whole output:")
    for tool, v in sorted(meta["readcost"].items()):
        if v and v[0] == "read":
            print("  %-14s %7s rows %9s bytes: %11s ns (fastest of %s reads)"
                  % (tool, v[3], v[2], v[4], v[1]))
        else:
            print("  %-14s %s" % (tool, " ".join(v)))
    if "totals" in meta:
        print("both on over the same held objects: " + " ".join(meta["totals"]))
    if meta["allocinfo"]:
        print("/proc/allocinfo, rows with live bytes (bytes calls tag):")
        for row in meta["allocinfo"]:
            print("  " + row)
    if meta["sa_row"]:
        print("/proc/slab_account, rows with live bytes:")
        for row in meta["sa_row"]:
            print("  " + row)
    if "agree" in meta:
        print("eBPF pointers vs slab_account at sab_pair: " +
              " ".join(meta["agree"]))
    shapes = print_shapes(res, ["map", "active"])
    t = peers_targets(res)
    print_targets(name, t)
    for f in meta["fail"]:
        print("FAILED: " + f)
    return {"results": res, "meta": meta, "targets": t, "shapes": shapes}, \
        bool(meta["fail"]) or not meta.get("done")


def scale_parse(path):
    meta = {"fail": [], "R": {}}
    try:
        f = open(path, errors="replace")
    except OSError as e:
        meta["fail"].append("no results: %s" % e)
        return meta
    with f:
        for w in result_lines(f, meta):
            if w[0] == "M" and len(w) >= 2:
                meta[w[1]] = w[2:]
            elif w[0] == "R" and len(w) >= 3:
                meta["R"][w[2]] = w[3:]
    return meta


def scale_kv(words):
    """KEY=VALUE words, or meminfo's 'Key: value' pairs, as a dict."""
    if words and "=" in words[0]:
        return dict(x.split("=", 1) for x in words if "=" in x)
    return {k.rstrip(":"): v for k, v in zip(words[::2], words[1::2])}


def scale_report(d):
    """The scale run: many possible CPUs (DIR/cpus), much RAM (DIR/ram)."""
    ph = {p: scale_parse("%s/%s/ktap.log" % (d, p)) for p in ("cpus", "ram")}
    c, r = ph["cpus"], ph["ram"]

    def one(m, key, i=0):
        v = m.get(key)
        return v[i] if v and len(v) > i else "-"

    def size(m, name, key):
        return scale_kv(m.get(name, [])).get(key, "-")

    def delta(m, name, key):
        b = scale_kv(m.get("mem_before_" + name, []))
        a = scale_kv(m.get("mem_after_" + name, []))
        if key not in a or key not in b:
            return None
        return int(a[key]) - int(b[key])

    def kb(v):
        return "-" if v is None else "%+d kB" % v

    def rd(m, name):
        v = m.get(name)
        if not v or len(v) < 7 or v[1] != "read":
            return None
        return {"call_sites": int(v[0]), "reps": int(v[2]),
                "bytes": int(v[3]), "rows": int(v[4]),
                "min_ns": int(v[5]), "median_ns": int(v[6])}

    def rdcell(m, name):
        x = rd(m, name)
        if not x:
            return "-"
        return "%.1f ms, %d rows" % (x["min_ns"] / 1e6, x["rows"])

    print()
    online = one(c, "cpus") if one(c, "cpus") == one(r, "cpus") else \
        "%s and %s" % (one(c, "cpus"), one(r, "cpus"))
    print("== scale: kernel %s, 2 boots without icount (single-threaded TCG),"
          " %s vCPUs online" % (one(c, "kernel"), online))
    print("   many CPUs: possible %s (%s), %s kB MemTotal; much RAM: possible"
          " %s, %s kB MemTotal" % (one(c, "possible"), one(c, "nr_possible"),
                                   one(c, "memtotal"), one(r, "possible"),
                                   one(r, "memtotal")))
    if c.get("allowing"):
        print("   many CPUs' boot: " + " ".join(c["allowing"]))
    print()
    rows = []

    def row(label, a, b):
        rows.append((label, a, b))
    row("possible CPUs", one(c, "nr_possible"), one(r, "nr_possible"))
    row("default sizing (as /init loaded it):", "", "")
    for key, label in (("object_capacity", "  object capacity"),
                       ("site_capacity", "  call site capacity"),
                       ("table_memory", "  table memory (bytes)"),
                       ("counter_memory", "  counter memory (bytes)"),
                       ("counter_cpus", "  counter cpus")):
        row(label, size(c, "sizes_boot", key), size(r, "sizes_boot", key))
    row("loaded with max_sites=16384 for the reads:", "", "")
    for key, label in (("object_capacity", "  object capacity"),
                       ("site_capacity", "  call site capacity"),
                       ("table_memory", "  table memory (bytes)"),
                       ("counter_memory", "  counter memory (bytes)"),
                       ("counter_cpus", "  counter cpus")):
        row(label, size(c, "sizes_reads", key), size(r, "sizes_reads", key))
    row("  vmallocinfo [slab_account]: areas bytes",
        " ".join(c.get("vmalloc_reads", ["-"])),
        " ".join(r.get("vmalloc_reads", ["-"])))
    for key in ("Percpu", "VmallocUsed", "Slab", "MemFree"):
        row("  %s at insmod" % key, kb(delta(c, "reads", key)),
            kb(delta(r, "reads", key)))
    row("full read, 10,000 sites (fastest of 5)", rdcell(c, "read_before"),
        rdcell(r, "read_before"))
    row("first read right after a reset", rdcell(c, "read_reset_first"),
        rdcell(r, "read_reset_first"))
    row("  then fastest of 5 more", rdcell(c, "read_reset"),
        rdcell(r, "read_reset"))
    w = max(len(x[0]) for x in rows) + 2
    print("%-*s %24s %24s" % (w, "", "many CPUs: %s possible"
                               % one(c, "nr_possible"),
                               "much RAM: %s possible" % one(r, "nr_possible")))
    print("-" * (w + 50))
    for label, a, b in rows:
        print("%-*s %24s %24s" % (w, label, a, b))
    held = {}
    h = r.get("held")
    if h and len(h) >= 8:
        keys = ["asked", "row_objs", "dropped_before", "dropped",
                "tracked", "object_capacity", "table_memory",
                "current_objects"]
        held = dict(zip(keys, h))
        hm = r["R"].get("hold_many")
        ns = int(hm[2]) if hm and len(hm) >= 3 else None
        print()
        print("much RAM, default sizing (object capacity %s, table memory %s"
              " bytes):" % (held["object_capacity"], held["table_memory"]))
        print("  hold_many %s kmalloc(64): %s live in its row, tracked objects"
              " %s, current objects %s%s"
              % (held["asked"], held["row_objs"], held["tracked"],
                 held["current_objects"],
                 "" if ns is None else ", %.1f s" % (ns / 1e9)))
        dropped = int(held["dropped"]) - int(held["dropped_before"])
        print("  dropped objects: %s (+%d while holding): %s"
              % (held["dropped"], dropped,
                 "NOT 0, objects beyond the table were dropped" if dropped
                 else "0, every object tracked"))
        adv = r.get("advised")
        if adv and adv[0] != "n/a":
            print("  advised max_objects (the header): " + adv[0])
        rel = r.get("released")
        if rel:
            print("  after release: tracked objects %s, dropped objects %s,"
                  " unknown frees %s" % tuple((rel + ["-"] * 3)[:3]))
    fail = False
    for p, m in ph.items():
        for f in m["fail"]:
            print("FAILED (%s): %s" % (p, f))
        if m["fail"] or not m.get("done"):
            fail = True
            if not m["fail"]:
                print("FAILED (%s): the guest did not finish" % p)
    doc = {"cpus": c, "ram": r, "held": held,
           "reads": {p: {n: rd(m, n) for n in ("read_before",
                                                 "read_reset_first",
                                                 "read_reset")}
                     for p, m in ph.items()},
           "table": [{"row": a, "cpus": b, "ram": x} for a, b, x in rows]}
    return doc, fail


def main():
    outj = sys.argv[1]
    doc = {"runs": {}}
    fail = False
    for arg in sys.argv[2:]:
        name, d = arg.split(":", 1)
        icount = name.endswith("icount")
        if name == "scale":
            doc["runs"][name], bad = scale_report(d)
            fail = fail or bad
            continue
        if name.startswith("map-"):
            doc["runs"][name], bad = peers_report(name, d, icount)
            fail = fail or bad
            continue
        res, meta = parse(d + "/ktap.log", CONFIGS + CTX_CONFIGS)
        if meta["fail"] or not meta.get("done"):
            fail = True
        nb = meta.get("sizes", ["?", "?"])[1]
        cpus = meta.get("cpus", ["?"])[0]
        title = ("with -icount shift=0,sleep=off (guest ns = instructions)"
                 if icount else "without icount (guest ns = host time, TCG)")
        print()
        print("== %s, %s vCPUs, kernel %s" % (title, cpus,
                                                meta.get("kernel", ["?"])[0]))
        print("   guest ns per operation (lower is better) unless noted")
        print()
        for line in table("workload", res, meta, icount, nb):
            print(line)
        print()
        print("/proc/slab_account full read (5 reads, fastest; loaded"
              " with max_sites=16384, capacity %s):"
              % meta.get("read_site_capacity", ["?"])[0])
        print("  %9s %7s %9s %11s %9s" % ("generated", "rows", "bytes",
                                          "ns/read", "ns/row"))
        for r in meta["read"]:
            print("  %9d %7d %9d %11d %9.0f" % (
                r["generated_sites"], r["rows"], r["bytes"], r["min_ns"],
                r["min_ns"] / max(r["rows"], 1)))
        if "read_detail" in meta:
            d = meta["read_detail"]
            print("/proc/slab_account_detail full read (5 reads, fastest):"
                  " %s rows, %s object slots scanned, %s bytes: %s ns"
                  % (d[0], d[1], d[-4], d[-2]))
        for line in memory(meta):
            print(line)
        if "hooked" in meta:
            print("hooked (active): " + " ".join(meta["hooked"]) +
                  "; with hooks=0: " + " ".join(meta.get("hooked_off", [])))
        if "hook_rows" in meta:
            print("after the active workloads: resized in place %s, missed"
                  " hook calls %s, sab_bulk's row allocs/frees %s"
                  % tuple((meta["hook_rows"] + ["-"] * 3)[:3]))
        shapes = print_shapes(res, ["floor", "active"])
        ctx_lines, ctx = ctx_report(res, meta)
        if ctx_lines:
            print()
            print("context rows: the pair kmalloc(64)+kfree at its own call"
                  " site, median of the runs; extra over uncaptured")
            for line in ctx_lines:
                print(line)
        t = targets(res, meta, icount)
        print_targets(name, t)
        for f in meta["fail"]:
            print("FAILED: " + f)
        doc["runs"][name] = {"results": res, "meta": meta, "targets": t,
                             "shapes": shapes, "context": ctx}
    with open(outj, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    print()
    print("JSON: " + outj)
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
