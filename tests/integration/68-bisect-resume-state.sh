#!/usr/bin/env bash
# `bisect --resume` reads bisect.json back and trusts none of it: a number
# among settings.workloads (which crashed the resume: NULL into
# strvec_push()), or any other field of the wrong type, is exit status 1
# naming the file and the field. No kernel is built and no guest booted:
# the bisection folder is written by hand, the lab file only names kernels.
# run-all: quick
. "$(dirname "$0")/../lib/common.sh"

mkdir -p "$TMP/reports" "$TMP/src"
cat > "$TMP/lab.conf" <<CONF
[lab]
state_dir = $TMP/state
cache_dir = $TMP/cache
reports_dir = $TMP/reports

[kernel base]
source = $TMP/src

[kernel three]
from = base
series = $ROOT/tests/fixtures/series/yield-three.mbox

[guest tiny]
file = $ROOT/guests/tiny.conf

[run]
kernels = base three
guest = tiny
workloads = yield_pingpong
CONF

# resume_with NAME PYTHON: a bisection folder NAME whose bisect.json is a
# started bisection's, changed by the PYTHON statement on `d`.
resume_with() {
	local name=$1 change=$2
	mkdir -p "$TMP/reports/$name"
	python3 - "$TMP/reports/$name/bisect.json" "$change" <<'PY' || fail "cannot write bisect.json"
import json, sys
d = {"schema": "mglrulab-bisect/1", "config": "lab.conf", "baseline": "base",
     "series_kernel": "three", "n": 3,
     "settings": {"max_runs": 8, "budget_s": 0.0, "per_patch": False, "workloads": ["yield_pingpong"]},
     "patches": [{"position": i, "subject": "mm: %d" % i, "message_id": None} for i in (1, 2, 3)],
     "steps": [], "prefixes": {}, "probes": [], "complete": False}
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
PY
	"$LAB" bisect --resume "$name" -c "$TMP/lab.conf" > "$TMP/$name.out" 2> "$TMP/$name.err"
	echo $?
}

expect_refused() {	# NAME FIELD PYTHON
	local rc
	rc=$(resume_with "$1" "$3")
	cat "$TMP/$1.err"
	[ "$rc" -eq 1 ] || fail "$1: bisect --resume exited $rc, expected 1"
	grep -qF "$TMP/reports/$1/bisect.json: $2" "$TMP/$1.err" ||
		fail "$1: the message does not name the file and $2"
}

expect_refused wl-int "settings.workloads[1]" 'd["settings"]["workloads"].append(7)'
expect_refused wl-obj "settings.workloads[0]" 'd["settings"]["workloads"] = [{"name": "yield_pingpong"}]'
expect_refused max-runs "settings.max_runs" 'd["settings"]["max_runs"] = "8"'
expect_refused steps "steps[0].a" 'd["steps"] = [{"step": 1, "purpose": "confirm", "a": 1, "b": "three", "dir": "steps/01-confirm", "state": "done", "results": []}]'
echo ok
