#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the expected outputs of the guest-* host tests against the raw
guest files they were made from, without slabacct: the reader's numbers
must be sums of the files' rows.

    guest_check.py FIXTURES EXPECTED

FIXTURES holds the guest_* files (scripts/ci.sh fixtures), EXPECTED the
expected/guest-*.out files.  Prints one line per mismatch and a last line
"N checks, M mismatches"; exits 1 on any mismatch or when nothing was
checked.
"""
import collections
import json
import re
import sys

FIX, EXP = sys.argv[1] + '/', sys.argv[2] + '/'
COLS = ['total', 'slack', 'req', 'live', 'live_req', 'objs', 'peak',
        'allocs', 'frees']
ZERO = [0] * 9
checks = 0
bad = 0


def chk(what, want, got):
    global checks, bad
    checks += 1
    if want != got:
        bad += 1
        print('MISMATCH %s: want %s, got %s' % (what, want, got))


def add(a, b):
    return [x + y for x, y in zip(a, b)]


def rows(name):
    """The header and the rows of a /proc/slab_account file."""
    hdr, out, legend = {}, [], False
    with open(FIX + name) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('#'):
                legend = True
            elif not legend:
                k, _, v = line.partition(': ')
                hdr[k] = v
            else:
                p = line.split(None, 9)
                a, fr = p[7].split('/')
                m = re.search(r' @(stack|cgroup|node|task|irq)', p[9])
                out.append({'n': [int(x) for x in p[:7]] + [int(a), int(fr)],
                            'site': p[9][:m.start()] if m else p[9],
                            'ctx': p[9][m.start() + 1:] if m else ''})
    return hdr, out


def context(ctx, kind):
    """The name --by KIND gives a row's context (no --cgroup-root)."""
    if kind == 'stack':
        return None
    m = re.search(r'@(cgroup|node|task):(\S+)$', ctx)
    if m:
        return {'cgroup': 'cgroup#', 'node': 'node ', 'task': ''}[m.group(1)] + m.group(2)
    return 'irq' if ctx.endswith('@irq') else '-'


def groups(name, kind, grep=None):
    g = collections.OrderedDict()
    for r in rows(name)[1]:
        if grep and grep not in r['site']:
            continue
        if kind == 'stack':
            m = re.search(r'@stack:(\d+)', r['ctx'])
            key = r['site'] + (' @stack:' + m.group(1) if m else '')
        else:
            key = context(r['ctx'], kind)
        s, c = g.get(key, (ZERO, 0))
        g[key] = (add(s, r['n']), c + 1)
    return g


def site_sums(name, keep=lambda r: True):
    d = {}
    for r in rows(name)[1]:
        if keep(r):
            d[r['site']] = add(d.get(r['site'], ZERO), r['n'])
    return d


def text_table(path):
    """A text report's rows: caller -> the nine numbers."""
    d = {}
    with open(EXP + path) as f:
        for line in f:
            p = line.split(None, 10)
            if len(p) == 11 and p[0].isdigit() and '/' in p[7]:
                a, fr = p[7].split('/')
                d[p[10].rstrip('\n')] = [int(x) for x in p[:7]] + [int(a), int(fr)]
    return d


def stacks(name, firsts=None):
    """A stacks file's frames by id; its records' first contexts (2.0:
    the words after the frame count) into the dict @firsts if given."""
    st, cur = {}, None
    with open(FIX + name) as f:
        for line in f:
            m = re.match(r'stack (\d+) \d+((?: \S+)*)$', line.rstrip('\n'))
            if m:
                cur = int(m.group(1))
                st[cur] = []
                if firsts is not None:
                    firsts[cur] = m.group(2).split()
            elif line.startswith('  ') and cur:
                st[cur].append(line.strip())
    return st


def detail(name):
    """A detail file's now and rows: name -> (objs, bytes, oldest, byte_secs)."""
    now, d = None, {}
    with open(FIX + name) as f:
        for line in f:
            if line.startswith('now: '):
                now = int(line.split()[1])
            elif line[0].isdigit():
                p = line.split(None, 25)
                d[p[25].split(None, 1)[1].rstrip('\n')] = [int(p[0]), int(p[1]), int(p[3]), int(p[4])]
    return now, d


SCENES = ['cgroup', 'task', 'node', 'stack', 'stack_later', 'stack_cgroup']
SITE = 'sa_ctx_site+'

# The header's sums are the rows' (each file was read while stopped), and
# sa_ctx's site (its own row and its child rows) is what sa_ctx's books say.
for s in SCENES:
    h, rs = rows('guest_%s.txt' % s)
    tot = ZERO
    for r in rs:
        tot = add(tot, r['n'])
    for key, i in [('total bytes allocated', 0), ('slack bytes allocated', 1),
                   ('total bytes requested', 2), ('current bytes allocated', 3),
                   ('current bytes requested', 4), ('current objects', 5),
                   ('number of allocs', 7), ('number of frees', 8)]:
        chk('%s: %s' % (s, key), int(h[key]), tot[i])
    chk('%s: number of callers' % s, int(h['number of callers']), len(rs))
    chk('%s: context rows >= child rows' % s, True,
        int(h['context rows']) >= sum(1 for r in rs if r['ctx']))
    books = ZERO[:7]
    with open(FIX + 'guest_%s.books' % s) as f:
        for line in f:
            if not line.startswith('#'):
                books = add(books, [int(x) for x in line.split()[1:]])
    site = site_sums('guest_%s.txt' % s, lambda r: r['site'].startswith(SITE))
    (v,) = site.values()
    chk('%s: sa_ctx_site against the books' % s, books,
        [v[7], v[8], v[0], v[2], v[3], v[4], v[5]])

# --by: the groups of the raw rows
for name, kind, exp, grep in [
        ('guest_cgroup.txt', 'cgroup', 'guest-by-cgroup-csv.out', None),
        ('guest_task.txt', 'task', 'guest-by-task-csv.out', None)]:
    got = {}
    with open(EXP + exp) as f:
        for line in f.read().splitlines()[1:]:
            p = line.split(',', 11)
            got[p[11]] = ([int(x) for x in p[:9]], int(p[10]))
    want = groups(name, kind, grep)
    chk(exp + ': groups', sorted(want), sorted(got))
    for k in want:
        chk('%s: %s' % (exp, k), want[k], got.get(k))
for name, kind, exp, grep in [
        ('guest_node.txt', 'node', 'guest-by-node-json.out', None),
        ('guest_stack.txt', 'stack', 'guest-by-stack-json.out', 'sa_ctx')]:
    with open(EXP + exp) as f:
        j = json.load(f)
    got = {r[kind]: ([r[c] for c in COLS], r['sites']) for r in j['rows']}
    want = groups(name, kind, grep)
    chk(exp + ': groups', sorted(want), sorted(got))
    for k in want:
        chk('%s: %s' % (exp, k), want[k], got.get(k))

# The report: each site its own row plus its child rows; the filters keep
# one context's rows, summed per site
for name, exp, keep in [
        ('guest_cgroup.txt', 'guest-cgroup-default.out', lambda r: True),
        ('guest_task.txt', 'guest-task-default.out', lambda r: True),
        ('guest_node.txt', 'guest-node-default.out', lambda r: True),
        ('guest_stack.txt', 'guest-stack-default.out', lambda r: True),
        ('guest_cgroup.txt', 'guest-cgroup-irq.out', lambda r: r['ctx'].endswith('@irq')),
        ('guest_task.txt', 'guest-task.out', lambda r: r['ctx'].endswith('@task:sactx@two')),
        ('guest_task.txt', 'guest-task-irq.out', lambda r: r['ctx'].endswith('@irq')),
        ('guest_node.txt', 'guest-node.out', lambda r: r['ctx'].endswith('@node:1'))]:
    want, got = site_sums(name, keep), text_table(exp)
    chk(exp + ': sites', sorted(want), sorted(got))
    for k in want:
        chk('%s: %s' % (exp, k), want[k], got.get(k))
with open(FIX + 'guest_cgroup.ids') as f:
    ids = dict(reversed(line.split()) for line in f)
want = site_sums('guest_cgroup.txt', lambda r: r['ctx'].endswith('@cgroup:' + ids['/sactx_one']))
got = text_table('guest-cgroup-id.out')
chk('guest-cgroup-id.out: sites', sorted(want), sorted(got))
for k in want:
    chk('guest-cgroup-id.out: ' + k, want[k], got.get(k))

# --folded: a line per stack row (its frames outermost first), the values
# adding up to the header's total
for name, exp in [('guest_stack', 'guest-folded.out'),
                  ('guest2_stack', 'guest2-folded.out')]:
    h, rs = rows(name + '.txt')
    st = stacks(name + '.stacks')
    with open(EXP + exp) as f:
        folded = f.read().splitlines()
    chk(exp + ': sum', int(h['total bytes allocated']),
        sum(int(line.rsplit(' ', 1)[1]) for line in folded))
    for r in rs:
        m = re.search(r'@stack:(\d+)', r['ctx'])
        if m:
            line = ';'.join(reversed(st[int(m.group(1))])) + ' %d' % r['n'][0]
            chk('%s: stack %s' % (exp, m.group(1)), True, line in folded)

# --stacks: the site, its rows without a stack, and a branch per caller
# (the stacks' second frame), with --detail the oldest under each
for name, sf, df, exp in [
        ('guest_stack', 'guest_stack', 'guest_stack', 'guest-stacks-detail.out'),
        ('guest_stack_cgroup', 'guest_stack_cgroup', 'guest_stack_cgroup',
         'guest-stack-cgroup-stacks.out'),
        ('guest2_stack', 'guest2_stack', 'guest2_stack', 'guest2-stacks.out'),
        ('guest2_stack_cgroup', 'guest2_stack_cgroup', 'guest2_stack_cgroup',
         'guest2-stack-cgroup-stacks.out')]:
    st = stacks(sf + '.stacks')
    old = detail(df + '.detail')[1]
    br, own, site = {}, [ZERO, 0], [ZERO, 0]
    for r in rows(name + '.txt')[1]:
        if not r['site'].startswith(SITE):
            continue
        age = old[r['site'] + (' ' + r['ctx'] if r['ctx'] else '')][2]
        site = [add(site[0], r['n']), max(site[1], age)]
        m = re.search(r'@stack:(\d+)', r['ctx'])
        if m:
            k = st[int(m.group(1))][1]
            b = br.get(k, [ZERO, 0])
            br[k] = [add(b[0], r['n']), max(b[1], age)]
        else:
            own = [add(own[0], r['n']), max(own[1], age)]

    def cols(v):
        return [v[0][0], v[0][3], v[0][5], v[0][7], v[0][8], '%ds' % v[1]]
    with open(EXP + exp) as f:
        lines = f.read().splitlines()

    def num(line):
        return [int(x) for x in line.split()[:5]] + [line.split()[5]]
    chk(exp + ': site', cols(site), num(lines[1]))
    chk(exp + ': not captured', cols(own), num(lines[2]))
    seen = 0
    for line in lines[3:]:
        if re.match(r'^( *\d+){5} +\S+ {3}sa_ctx_[abc]\+', line):
            k = line.split(None, 6)[6]
            chk('%s: %s' % (exp, k), cols(br[k]), num(line))
            seen += 1
    chk(exp + ': branches', len(br), seen)

# The stacks file 2.0 (guest2_*): each record's first context is the
# scene's (scripts/guest-fixtures.sh).  stack_cgroup: caller a's stack
# first reached by a shell in /sactx_one, b's by another in /sactx_two,
# c's in a hard irq; stack: a, b and c by one same shell (its cgroup the
# root, id 1 on this 64-bit guest), c once more in a hard irq.  --stacks
# shows each where its branch ends, --json as an object.
ids = {}
with open(FIX + 'guest2_cgroup.ids') as f:
    for line in f:
        i, path = line.split()
        ids[path] = int(i)


def first_words(caller, pid, cg):
    if caller == 'irq':
        return ['irq']
    return ['pid', str(pid), 'tid', str(pid), 'comm', 'sh', 'cgroup', str(cg)]


def first_shown(w):
    if w == ['irq']:
        return 'irq'
    d = dict(zip(w[0::2], w[1::2]))
    tid = '' if d['tid'] == d['pid'] else ' tid ' + d['tid']
    return 'pid %s%s comm %s cgroup cgroup#%s' % (d['pid'], tid, d['comm'], d['cgroup'])


for name, exp, want_cg in [
        ('guest2_stack', 'guest2-stacks.out', {'a': '/', 'b': '/', 'c': '/'}),
        ('guest2_stack_cgroup', 'guest2-stack-cgroup-stacks.out',
         {'a': '/sactx_one', 'b': '/sactx_two'})]:
    fi = {}
    st = stacks(name + '.stacks', fi)
    by = collections.defaultdict(list)
    for i, fr in st.items():
        caller = re.match(r'sa_ctx_([abc])\+', fr[1]).group(1)
        kind = 'irq' if fi[i] == ['irq'] else caller
        by[kind].append(i)
        if kind != 'irq':
            chk('%s: stack %d cgroup' % (name, i), ids[want_cg[caller]],
                int(dict(zip(fi[i][0::2], fi[i][1::2]))['cgroup']))
    chk(name + ': stacks in irq', 1, len(by['irq']))
    task = [i for k in 'abc' for i in by[k]]
    pids = [fi[i][1] for i in task]
    for i in task:
        chk('%s: stack %d first' % (name, i),
            first_words('task', fi[i][1], fi[i][7]), fi[i])
    if name == 'guest2_stack':
        chk(name + ': one shell reached a, b and c first', [1, 3],
            [len(set(pids)), len(task)])
    else:
        chk(name + ': two shells reached a and b first', [2, 2],
            [len(set(pids)), len(task)])
    with open(EXP + exp) as f:
        shown = re.findall(r'\[stack (\d+), first: ([^]]*)\]', f.read())
    chk(exp + ': stacks shown', sorted(st), sorted(int(i) for i, _ in shown))
    for i, text in shown:
        chk('%s: stack %s first' % (exp, i), first_shown(fi[int(i)]), text)
    if name == 'guest2_stack_cgroup':
        with open(EXP + 'guest2-stack-cgroup-json.out') as f:
            js = json.load(f)
        seen = 0
        for site in js['sites']:
            for s in site['stacks']:
                w = fi[s['id']]
                if w == ['irq']:
                    want = {'irq': True}
                else:
                    d = dict(zip(w[0::2], w[1::2]))
                    want = {'pid': int(d['pid']), 'tid': int(d['tid']),
                            'comm': d['comm'], 'cgroup_id': int(d['cgroup']),
                            'cgroup': 'cgroup#' + d['cgroup']}
                chk('guest2-stack-cgroup-json.out: stack %d first' % s['id'],
                    want, s['first'])
                chk('guest2-stack-cgroup-json.out: stack %d frames' % s['id'],
                    st[s['id']], s['frames'])
                seen += 1
        chk('guest2-stack-cgroup-json.out: stacks', len(st), seen)

# --leaks: each sa_ctx row's held bytes, objects, oldest and byte-seconds
# are the later detail file's, its rates the change over the interval
now1, d1 = detail('guest_stack.detail')
now2, d2 = detail('guest_stack_later.detail')
seen = 0
with open(EXP + 'guest-leaks.out') as f:
    for line in f:
        p = line.split()
        if len(p) > 7 and p[0].isdigit() and SITE in line:
            name = SITE + line.split(SITE, 1)[1].rstrip('\n')
            o, b, age, bs = d2[name]
            e = d1.get(name, [0, 0, 0, 0])
            chk('guest-leaks.out: ' + name,
                [b, o, '%ds' % age, '%+.1f' % ((o - e[0]) * 60 / (now2 - now1)), bs],
                [int(p[1]), int(p[2]), p[3], p[4] if p[4] != '0.0' else '+0.0', int(p[6])])
            seen += 1
chk('guest-leaks.out: sa_ctx rows', len([k for k in d2 if k.startswith(SITE)]), seen)

# --advise: sa_ctx_site's request sizes (its child rows' and its own, in
# the detail file) and slack (in the main file)
BOUNDS = ['8', '16', '32', '64', '128', '256', '512', '1K', '2K', '4K', '8K']
for scene, exp in [('stack', 'guest-advise-stack.out'), ('node', 'guest-advise-node.out')]:
    sizes, lo, hi = [0] * 12, None, 0
    with open(FIX + 'guest_%s.detail' % scene) as f:
        for line in f:
            if line[0].isdigit() and SITE in line:
                p = line.split()
                sizes = add(sizes, [int(x) for x in p[13:25]])
                lo = int(p[11]) if lo is None else min(lo, int(p[11]))
                hi = max(hi, int(p[12]))
    n = sum(sizes)
    parts = ['%s%s %.1f%%' % ('<=' if i < 11 else '>', BOUNDS[min(i, 10)], 100.0 * c / n)
             for i, c in enumerate(sizes) if c]
    (v,) = site_sums('guest_%s.txt' % scene, lambda r: r['site'].startswith(SITE)).values()
    with open(EXP + exp) as f:
        text = f.read()
    m = re.search(r'sizes (\d+)\.\.(\d+): (.*); classes .*; slack (\d+) of (\d+) bytes', text)
    chk(exp + ': the sizes line', True, m is not None)
    if m:
        chk(exp + ': sizes', [lo, hi, ', '.join(parts), v[1], v[0]],
            [int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4)), int(m.group(5))])

print('%d checks, %d mismatches' % (checks, bad))
sys.exit(1 if bad or not checks else 0)
