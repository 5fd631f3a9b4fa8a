# Shared helpers of the workload tests (50-*.sh ... 59-*.sh); sourced, not
# run (run-all only runs *.sh). Each test runs a guest-side program
# directly on this host with tiny parameters.
set -u
cd "$(dirname "$0")/../.."

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

G=build/guest
for p in yield_pingpong will_it_scale numa_workload kernel_build mglru_aging thp_scale; do
	[ -x "$G/$p" ] || make -s workloads >/dev/null || fail "cannot build the workloads"
done
TMP=$(mktemp -d /tmp/mglrulab-wl-test.XXXXXX) || fail "mktemp"
trap 'rm -rf "$TMP"' EXIT

# run NAME PROGRAM ARGS...: stdout to $TMP/NAME.out, status to $TMP/NAME.rc.
run() {
	local name=$1
	shift
	timeout 120 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	echo $? >"$TMP/$name.rc"
}

rc_of() { cat "$TMP/$1.rc"; }

# check NAME 'python expression over lines' ...: validate the output
# contract of every line, then evaluate each assertion (python, with
# L = all objects, M = {metric name: value}, I = info lines, S = snapshot
# lines, E = error lines, ser(name) = a series' values, close(a, b) = equal
# within floating-point rounding, the statistics module). Prints the
# failing assertion.
check() {
	local name=$1
	shift
	python3 - "$TMP/$name.out" "$@" <<'PY' || fail "$name: output check failed (see above)"
import json, math, statistics, sys
path, asserts = sys.argv[1], sys.argv[2:]
raw = open(path, 'rb').read()
if raw and not raw.endswith(b'\n'):
    sys.exit('last line is not terminated')
L = []
for n, line in enumerate(raw.split(b'\n')[:-1], 1):
    if len(line) > 1024 * 1024:
        sys.exit(f'line {n} is over 1 MiB')
    try:
        o = json.loads(line.decode('utf-8'))
    except Exception as e:
        sys.exit(f'line {n} is not JSON: {e}: {line[:200]!r}')
    if not isinstance(o, dict) or o.get('type') not in ('metric', 'series', 'snapshot', 'info', 'error'):
        sys.exit(f'line {n}: bad type: {line[:200]!r}')
    t = o['type']
    num = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == 'metric' and not (isinstance(o.get('name'), str) and num(o.get('value')) and isinstance(o.get('unit'), str)):
        sys.exit(f'line {n}: bad metric {o}')
    if t == 'series' and not (isinstance(o.get('name'), str) and isinstance(o.get('values'), list) and all(num(v) for v in o['values'])):
        sys.exit(f'line {n}: bad series {o}')
    if t == 'snapshot' and not (o.get('phase') in ('before', 'after') and isinstance(o.get('source'), str) and isinstance(o.get('text'), str)):
        sys.exit(f'line {n}: bad snapshot {str(o)[:200]}')
    if t == 'error' and not isinstance(o.get('reason'), str):
        sys.exit(f'line {n}: bad error {o}')
    L.append(o)
M = {o['name']: o['value'] for o in L if o['type'] == 'metric'}
I = [o for o in L if o['type'] == 'info']
S = [o for o in L if o['type'] == 'snapshot']
E = [o for o in L if o['type'] == 'error']
def info(name):
    return [o for o in I if o.get('name') == name]
def ser(name):
    return [o for o in L if o['type'] == 'series' and o['name'] == name][0]['values']
def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9)
for a in asserts:
    try:
        ok = eval(a)
    except Exception as e:
        ok = False
        print(f'assertion raised {e!r}', file=sys.stderr)
    if not ok:
        print(f'assertion failed: {a}', file=sys.stderr)
        print(f'metrics: {M}', file=sys.stderr)
        print(f'errors: {E}', file=sys.stderr)
        print(f'infos: {[str(i)[:300] for i in I]}', file=sys.stderr)
        sys.exit(1)
PY
}
