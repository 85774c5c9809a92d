#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""prom_check.py: the checks of prom_e2e.sh, through a prometheus server's
HTTP API on 127.0.0.1, against the numbers of the fixtures themselves
(read here, independently of slabacct).

  prom_check.py wait URL SECS
      exit 0 once URL answers 200, 1 after SECS seconds
  prom_check.py snapshot API FIXTURE K TFILE
      wait (20 s at most) until the server has scraped FIXTURE's exposition,
      then check it at that time, written to TFILE
  prom_check.py change API OLD NEW T_OLD T_NEW
      the change from OLD (seen at T_OLD) to NEW (seen at T_NEW)
  prom_check.py contexts API FIXTURE K
      (1.6) a file split by cgroup (its ids named cgroup#ID), written with
      --top-k K -s live: wait for its scrape, then the top site per cgroup
      and the sums per cgroup (the K cgroups holding most, the others
      together as cgroup="(other)")

Prints `ok NAME` or `FAIL NAME: why` per check; exit 1 when one failed.
"""
import json
import re
import sys
import time
import urllib.parse
import urllib.request

failed = False


def check(name, ok, why=''):
    global failed
    if ok:
        print('ok   prom-e2e: ' + name)
    else:
        failed = True
        print('FAIL prom-e2e: %s: %s' % (name, why))


def fixture(path):
    """The summary (key: number) and rows of a /proc/slab_account snapshot."""
    summary, rows, in_rows = {}, [], False
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('#'):
                in_rows = True
                continue
            if not in_rows:
                key, _, value = line.partition(': ')
                if value.isdigit():
                    summary[key] = int(value)
                continue
            w = line.split(None, 9)
            if len(w) < 10:
                continue
            allocs, frees = w[7].split('/')
            m = re.search(r' \[([^\]]+)\]', w[9])
            rows.append({'total': int(w[0]), 'live': int(w[3]), 'allocs': int(allocs),
                         'frees': int(frees), 'type': w[8], 'site': w[9],
                         'module': m.group(1) if m else 'vmlinux'})
    return summary, rows


def by_module(rows, field):
    s = {}
    for r in rows:
        s[r['module']] = s.get(r['module'], 0) + r[field]
    return s


def query(api, expr, t):
    url = api + '/api/v1/query?' + urllib.parse.urlencode({'query': expr, 'time': '%.3f' % t})
    with urllib.request.urlopen(url, timeout=5) as r:
        res = json.load(r)
    if res.get('status') != 'success':
        raise RuntimeError('%s: %s' % (expr, res))
    return [(x['metric'], float(x['value'][1])) for x in res['data']['result']]


def scalar(api, expr, t):
    r = query(api, expr, t)
    return r[0][1] if len(r) == 1 else None


def cmd_wait(url, secs):
    end = time.time() + float(secs)
    while time.time() < end:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return 0
        except OSError:
            pass
        time.sleep(0.2)
    return 1


def cmd_snapshot(api, path, k, tfile):
    summary, rows = fixture(path)
    k = int(k)
    name = path.split('/')[-1]
    # The scrape of this file: its summary's callers and total bytes.
    want_seen = (summary['number of callers'], summary['total bytes allocated'])
    end, t = time.time() + 20, None
    while time.time() < end:
        now = time.time()
        try:
            seen = (scalar(api, 'slab_account_callers', now),
                    scalar(api, 'slab_account_allocated_bytes_total', now))
        except OSError:
            seen = None
        if seen == want_seen:
            t = now
            break
        time.sleep(0.2)
    check(name + ': scraped', t is not None, 'not seen in 20 s')
    if t is None:
        return 1
    with open(tfile, 'w', encoding='ascii') as f:
        f.write('%.3f\n' % t)
    check(name + ': textfile collector', scalar(api, 'node_textfile_scrape_error', t) == 0.0,
          'node_textfile_scrape_error is not 0')

    # topk(3, ...): the three sites holding most, exactly
    got = sorted((m['site'], v) for m, v in
                 query(api, 'topk(3, slab_account_site_live_bytes{site!="other"})', t))
    want = sorted((r['site'], float(r['live'])) for r in
                  sorted(rows, key=lambda r: -r['live'])[:3])
    check(name + ': topk(3, slab_account_site_live_bytes)', got == want,
          'got %s, want %s' % (got, want))
    n = scalar(api, 'count(slab_account_site_live_bytes{site!="other"})', t)
    check(name + ': %d site series (--top-k)' % k, n == min(k, len(rows)),
          '%s series' % n)

    # sum by (module): exact for each module with a series, the rest
    # under module="(other)", and all of it the summary's
    got = {m.get('module'): v for m, v in
           query(api, 'sum by (module) (slab_account_site_live_bytes)', t)}
    mods = by_module(rows, 'live')
    bad = [(mod, v, mods.get(mod)) for mod, v in got.items()
           if mod != '(other)' and mods.get(mod) != v]
    rest = sum(v for mod, v in mods.items() if mod not in got)
    check(name + ': sum by (module) (slab_account_site_live_bytes)',
          not bad and got.get('(other)', 0.0) == rest and len(got) > 1,
          'got %s, want %s' % (got, mods))
    total = scalar(api, 'sum(slab_account_site_live_bytes)', t)
    check(name + ': sum(slab_account_site_live_bytes) is current bytes allocated',
          total == summary['current bytes allocated'], '%s, want %d' %
          (total, summary['current bytes allocated']))
    total = scalar(api, 'sum(slab_account_site_allocated_bytes_total)', t)
    check(name + ': sum(slab_account_site_allocated_bytes_total) is total bytes allocated',
          total == summary['total bytes allocated'], '%s, want %d' %
          (total, summary['total bytes allocated']))
    return 0


def context(site):
    """(1.6) A row's site and its cgroup label: cgroup#ID, irq or '-'."""
    m = re.search(r' @(cgroup:(\d+)|irq)$', site)
    if not m:
        return site, '-'
    return site[:m.start()], 'cgroup#' + m.group(2) if m.group(2) else 'irq'


def wait_scrape(api, path, summary):
    """The time the server first holds PATH's exposition, or None after 20 s."""
    want_seen = (summary['number of callers'], summary['total bytes allocated'])
    end = time.time() + 20
    while time.time() < end:
        now = time.time()
        try:
            seen = (scalar(api, 'slab_account_callers', now),
                    scalar(api, 'slab_account_allocated_bytes_total', now))
        except OSError:
            seen = None
        if seen == want_seen:
            return now
        time.sleep(0.2)
    return None


def cmd_contexts(api, path, k):
    summary, rows = fixture(path)
    name = path.split('/')[-1]
    t = wait_scrape(api, path, summary)
    check(name + ': scraped', t is not None, 'not seen in 20 s')
    if t is None:
        return 1
    live = {}   # cgroup -> site -> live bytes (a site's rows in it summed)
    for r in rows:
        site, cg = context(r['site'])
        live.setdefault(cg, {})
        live[cg][site] = live[cg].get(site, 0) + r['live']
    ranked = sorted(live, key=lambda cg: (-sum(live[cg].values()), cg))
    if len(ranked) > int(k):
        other = {}
        for cg in ranked[int(k):]:
            for site, v in live.pop(cg).items():
                other[site] = other.get(site, 0) + v
        live['(other)'] = other
    # the top site of each cgroup, exactly
    got = sorted((m['cgroup'], m['site'], v) for m, v in query(
        api, 'topk by (cgroup) (1, slab_account_site_live_bytes{site!="other"})', t))
    want = sorted((cg, max(s.items(), key=lambda x: x[1])[0], float(max(s.values())))
                  for cg, s in live.items())
    check(name + ': topk by (cgroup) (1, slab_account_site_live_bytes)', got == want,
          'got %s, want %s' % (got, want))
    got = {m['cgroup']: v for m, v in
           query(api, 'sum by (cgroup) (slab_account_site_live_bytes)', t)}
    want = {cg: float(sum(s.values())) for cg, s in live.items()}
    check(name + ': sum by (cgroup) (slab_account_site_live_bytes)', got == want,
          'got %s, want %s' % (got, want))
    return 0


def cmd_change(api, old, new, t_old, t_new):
    so, ro = fixture(old)
    sn, rn = fixture(new)
    t_old, t_new = float(t_old), float(t_new)
    # counters: the value at T_NEW minus the value at T_OLD (the @
    # modifier), exact; increase() would extrapolate to its range's ends
    d = scalar(api, 'slab_account_allocs_total - slab_account_allocs_total @ %.3f' % t_old, t_new)
    want = sn['number of allocs'] - so['number of allocs']
    check('change: slab_account_allocs_total', d == want, '%s, want %d' % (d, want))
    expr = ('sum by (module) (slab_account_site_allocated_bytes_total)'
            ' - sum by (module) (slab_account_site_allocated_bytes_total @ %.3f)' % t_old)
    got = {m['module']: v for m, v in query(api, expr, t_new) if m['module'] != '(other)'}
    mo, mn = by_module(ro, 'total'), by_module(rn, 'total')
    want = {mod: float(mn[mod] - mo[mod]) for mod in got if mod in mo and mod in mn}
    check('change: sum by (module) of site_allocated_bytes_total', got and got == want,
          'got %s, want %s' % (got, want))
    # per site: the sites with a series at both times
    expr = ('slab_account_site_allocs_total{site!="other"}'
            ' - slab_account_site_allocs_total{site!="other"} @ %.3f' % t_old)
    got = {m['site']: v for m, v in query(api, expr, t_new)}
    ao = {r['site']: r['allocs'] for r in ro}
    an = {r['site']: r['allocs'] for r in rn}
    want = {s: float(an[s] - ao[s]) for s in got if s in ao and s in an}
    check('change: slab_account_site_allocs_total per site', got and got == want and
          any(v != 0 for v in got.values()), 'got %s, want %s' % (got, want))
    return 0


def main(argv):
    cmds = {'wait': (cmd_wait, 2), 'snapshot': (cmd_snapshot, 4), 'change': (cmd_change, 5),
            'contexts': (cmd_contexts, 3)}
    if len(argv) < 2 or argv[1] not in cmds or len(argv) != cmds[argv[1]][1] + 2:
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1] == 'wait':
        return cmd_wait(*argv[2:])
    try:
        cmds[argv[1]][0](*argv[2:])
    except (OSError, RuntimeError, KeyError, ValueError) as e:
        check(argv[1], False, repr(e))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
