#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shell-test.sh [--cols C] [--rows R]
#
# `make shell` as a person at a terminal meets it, driven through tmux
# (a private server on a socket in build/shell-test, a detached pane of
# C x R, default 100 x 30): the
# guest must reach its prompt with few lines between QEMU's start and
# the prompt (the kernel's messages go to a file, not the screen); in the
# guest `stty size` must print the pane's size and `slabacct -n 3` the
# top call sites; `exit` must power the guest off and the host must say
# so ("the guest powered off", never the Ctrl-A x message); the marker
# SA_TAINT= must not be on the screen.  The whole pane (its scrollback
# included) is kept in build/shell-test/pane.txt.  ci.sh check runs it
# after the host tests.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cols=100 rows=30
while [ $# -gt 0 ]; do
	case "$1" in
	--cols) cols=${2:?}; shift ;;
	--rows) rows=${2:?}; shift ;;
	*) die "shell-test.sh: unknown argument $1" ;;
	esac
	shift
done
command -v tmux >/dev/null || die "shell-test.sh needs tmux (scripts/setup-deps.sh installs it)"

dir="$SA_ROOT/build/shell-test"
rm -rf "$dir"
mkdir -p "$dir"
sock="$dir/tmux.sock"
tm() { tmux -S "$sock" "$@"; }
# The server (and with it make shell and QEMU) goes whatever happens,
# interrupted too.
trap 'tm kill-server 2>/dev/null || true; rm -f "$sock"' EXIT
trap 'exit 1' INT TERM

pane() { tm capture-pane -p -J -S - -t t; }

# wait_for SECS REGEX: until the pane (scrollback included) matches.
wait_for() {
	local i
	for ((i = 0; i < $1 * 2; i++)); do
		if pane | grep -Eq "$2"; then
			return 0
		fi
		sleep 0.5
	done
	pane > "$dir/pane.txt"
	tail -n 30 "$dir/pane.txt" >&2
	die "shell test: no '$2' on the screen in $1 s (the whole pane: $dir/pane.txt)"
}

# A shell in the pane runs make shell, then says how it ended and stays.
tm -f /dev/null new-session -d -s t -x "$cols" -y "$rows" \
	"cd '$SA_ROOT' && make shell; echo \"SA_SHELL_TEST_END rc=\$?\"; sleep 3600"
tm set-option -t t history-limit 20000 >/dev/null
t0=$SECONDS
# make shell builds the demo's module and initramfs first (minutes on a
# cold cache), then boots.
wait_for 1200 'booting .*\(shell\)'
tb=$SECONDS
wait_for 300 'exit powers off$'
wait_for 30 '#[[:space:]]*$'
tp=$SECONDS
log "shell test: make shell reached the guest's prompt in $((tp - t0)) s ($((tp - tb)) s from QEMU's start)"
tm send-keys -t t 'stty size' Enter
wait_for 30 "^$rows $cols\$"
tm send-keys -t t 'slabacct -n 3' Enter
wait_for 60 'call sites: 3 of [0-9]+ shown'
tm send-keys -t t 'exit' Enter
wait_for 120 'SA_SHELL_TEST_END rc='
pane > "$dir/pane.txt"
ok=1
# What the screen shows between the banner and the prompt's hint line.
nboot=$(sed -n '/booting .*(shell)/,/exit powers off$/p' "$dir/pane.txt" | wc -l)
if [ "$nboot" -gt 4 ]; then
	log "shell test: $nboot lines from QEMU's start to the prompt (at most 4)"
	ok=0
fi
if grep -q 'SA_TAINT' "$dir/pane.txt"; then
	log "shell test: the marker SA_TAINT= is on the screen"
	ok=0
fi
grep -q 'the guest powered off (kernel taint [0-9]*)' "$dir/pane.txt" || {
	log "shell test: the host did not say the guest powered off"
	ok=0
}
if grep -q 'without powering off' "$dir/pane.txt"; then
	log "shell test: the host says the guest was stopped without powering off"
	ok=0
fi
grep -q 'SA_SHELL_TEST_END rc=0' "$dir/pane.txt" || {
	log "shell test: make shell did not exit 0"
	ok=0
}
if [ $ok = 0 ]; then
	tail -n 40 "$dir/pane.txt" >&2
	die "shell test failed (the whole pane: $dir/pane.txt)"
fi
log "shell test passed: prompt, stty size $rows $cols, slabacct, exit powered off, $nboot lines from QEMU's start to the prompt, no marker on the screen ($((SECONDS - t0)) s in all)"
