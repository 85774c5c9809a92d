#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prom_e2e.sh SLABACCT: the Prometheus end-to-end test.  It starts a real
# prometheus-node-exporter (the textfile collector alone) and a real
# prometheus server (a temporary config scraping it every second, a
# temporary storage directory), both on free 127.0.0.1 ports; writes
# `SLABACCT --prometheus -o DIR/slab_account.prom` of fixtures/by.txt into
# the collector's directory, waits for a scrape and checks PromQL answers
# through the HTTP API against the fixture's own numbers (prom_check.py);
# then fixtures/by_after.txt, and the change between the two; then (1.6)
# fixtures/ctx_cgroup.txt, split by cgroup: the top site per cgroup and the
# sums per cgroup (the other cgroups' together), exactly.  Both servers
# are stopped and the directory removed on exit; a server that is not up in
# 20 s, or a scrape not seen in 20 s, fails the test (it never hangs).
# Prints `ok NAME` / `FAIL NAME: why` lines; exit 0 when all pass, 1 when
# one fails, 4 when prometheus or the node exporter is missing (a skip).
set -u
SLABACCT=${1:?usage: prom_e2e.sh SLABACCT}
cd "$(dirname "$0")" || exit 1
K=4	# --top-k: by_after.txt's 9 sites; foo_alloc, which changed, has a series at both times

for b in prometheus prometheus-node-exporter python3; do
	if ! command -v "$b" >/dev/null 2>&1; then
		echo "skip prom-e2e: no $b (scripts/setup-deps.sh installs prometheus and prometheus-node-exporter)"
		exit 4
	fi
done

TMP=$(mktemp -d /tmp/sa-prom-e2e.XXXXXX)
pids=()
# shellcheck disable=SC2317 # (called by the trap)
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail=0
# A port free on 127.0.0.1 now (the kernel's choice of an ephemeral one).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# wait_http URL NAME LOG: up to 20 s for URL to answer 200.
wait_http() {
	if python3 prom_check.py wait "$1" 20; then
		echo "ok   prom-e2e: $2 up"
	else
		echo "FAIL prom-e2e: $2 not up on $1 in 20 s: $(tail -3 "$3")"
		exit 1
	fi
}

mkdir -p "$TMP/textfile" "$TMP/data"
NPORT=$(free_port)
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$TMP/textfile" \
	--web.listen-address="127.0.0.1:$NPORT" >"$TMP/node.log" 2>&1 &
pids+=($!)
PPORT=$(free_port)
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$NPORT']
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/data" \
	--web.listen-address="127.0.0.1:$PPORT" >"$TMP/prometheus.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$NPORT/metrics" node-exporter "$TMP/node.log"
wait_http "http://127.0.0.1:$PPORT/-/ready" prometheus "$TMP/prometheus.log"

API="http://127.0.0.1:$PPORT"
# snapshot NAME FIXTURE: write its exposition, wait for its scrape, check
# it; the time it was seen goes to $TMP/t_NAME.
snapshot() {
	if ! "$SLABACCT" --prometheus --top-k $K -s live -o "$TMP/textfile/slab_account.prom" "$2"; then
		echo "FAIL prom-e2e: slabacct --prometheus $2"
		exit 1
	fi
	python3 prom_check.py snapshot "$API" "$2" $K "$TMP/t_$1" || fail=1
}
snapshot old fixtures/by.txt
snapshot new fixtures/by_after.txt
if [ -s "$TMP/t_old" ] && [ -s "$TMP/t_new" ]; then
	python3 prom_check.py change "$API" fixtures/by.txt fixtures/by_after.txt \
		"$(cat "$TMP/t_old")" "$(cat "$TMP/t_new")" || fail=1
else
	echo "FAIL prom-e2e: change: a snapshot was not scraped"
	fail=1
fi
# (1.6) a file split by cgroup: the series per cgroup, top-K within each of
# the K cgroups holding most (its 4 contexts: two kept, two as "(other)");
# an empty cgroup root names every id cgroup#ID
mkdir "$TMP/cgnone"
if "$SLABACCT" --prometheus --top-k 2 -s live --cgroup-root "$TMP/cgnone" \
	-o "$TMP/textfile/slab_account.prom" fixtures/ctx_cgroup.txt; then
	python3 prom_check.py contexts "$API" fixtures/ctx_cgroup.txt 2 || fail=1
else
	echo "FAIL prom-e2e: slabacct --prometheus fixtures/ctx_cgroup.txt"
	fail=1
fi
exit $fail
