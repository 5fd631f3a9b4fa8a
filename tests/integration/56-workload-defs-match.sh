#!/usr/bin/env bash
# The host and the guest programs parse workload parameters with one table
# (common/workload_params.c; tests/unit/test_workload_params.c checks the
# table itself). What is left to show, with the binaries as built:
#  - every parameter lab.conf accepts is an option of its program with the
#    same default (--help), and the program has no other option;
#  - a value `mglrulab config check` refuses, the program refuses too: exit
#    1 before measuring anything, its error line expecting what the host's
#    message expects. (A value the host accepts is not run here: the
#    program would measure.)
# run-all: quick
# Paired (run-all): --help and refused values, nothing measured.
# run-all: paired
# run-all: cost 8
. "$(dirname "$0")/50-workload-lib.bash"

[ -x ./mglrulab ] || make -s mglrulab >/dev/null || fail "cannot build mglrulab"
WORKLOADS="yield_pingpong will_it_scale numa_workload kernel_build mglru_aging thp_scale"
conf=$TMP/lab.conf
cat >"$conf" <<EOC
[kernel baseline]
source = /usr/src/linux-source-6.12.tar.xz
[guest tiny]
file = $PWD/guests/tiny.conf
[run]
kernels = baseline
workloads = $WORKLOADS
EOC
./mglrulab config check "$conf" --json >"$TMP/conf.json" 2>"$TMP/conf.err" ||
	skip "mglrulab config check does not accept a minimal lab here: $(head -3 "$TMP/conf.err")"

python3 - "$TMP/conf.json" "$G" <<'PY' || fail "lab.conf's parameters and the programs' options disagree"
import json, subprocess, sys
conf, g = json.load(open(sys.argv[1])), sys.argv[2]
bad = 0
for w in conf['workloads']:
    helptext = subprocess.run([f"{g}/{w['type']}", '--help'], capture_output=True, text=True).stdout
    documented = {}
    for l in helptext.splitlines():
        if l.startswith('  --') and l.endswith(')') and '(default: ' in l:
            d = l.rsplit('(default: ', 1)[1][:-1]
            documented[l.split()[0][2:]] = '' if d == '""' else d
    if documented != w['params']:
        print(f"{w['type']}: lab.conf {w['params']}\n  program --help {documented}", file=sys.stderr)
        bad = 1
    print(" ".join(sorted(w['params'])), file=open(f"{sys.argv[1]}.{w['type']}", 'w'))
sys.exit(bad)
PY

# Values at least one kind of parameter refuses: not a number, below and
# above every range, a space-separated list, a choice nobody offers, a
# size in "MB", a power of two's neighbour, a make variable.
python3 - "$TMP" "$G" "$PWD" $WORKLOADS <<'PY' || fail "the host and a program disagree on a value"
import json, re, subprocess, sys
tmp, g, top, workloads = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
probes = ['x', '-1', '99999999999', '1 2', '0,', '160MB', '3', 'a=b']
refused = bad = 0
for w in workloads:
    for key in open(f"{tmp}/conf.json.{w}").read().split():
        for v in probes:
            path = f"{tmp}/probe.conf"
            with open(path, 'w') as f:
                f.write(f"[kernel baseline]\nsource = /usr/src/linux-source-6.12.tar.xz\n"
                        f"[guest tiny]\nfile = {top}/guests/tiny.conf\n"
                        f"[workload {w}]\n{key} = {v}\n[run]\nkernels = baseline\nworkloads = {w}\n")
            host = subprocess.run(['./mglrulab', 'config', 'check', path], capture_output=True, text=True)
            if host.returncode == 0:
                continue
            m = re.search(rf"\] {key}: (expected .*), not '.*'$", host.stderr, re.M)
            if not m:
                print(f"{w} {key}={v!r}: host error without 'expected': {host.stderr}", file=sys.stderr)
                bad = 1
                continue
            prog = subprocess.run([f"{g}/{w}", f"--{key}={v}"], capture_output=True, text=True, timeout=60)
            lines = [json.loads(l) for l in prog.stdout.splitlines()]
            if prog.returncode != 1 or len(lines) != 1 or m.group(1) not in lines[0].get('reason', ''):
                print(f"{w} --{key}={v!r}: the host refuses it ({m.group(1)}); the program "
                      f"exits {prog.returncode} with {prog.stdout!r}", file=sys.stderr)
                bad = 1
            refused += 1
if refused < 40:
    print(f"only {refused} values refused: the probes no longer reach the checks", file=sys.stderr)
    bad = 1
if not bad:
    print(f"ok: every workload parameter is a program option with the same default; "
          f"{refused} values refused by the host are refused by the program")
sys.exit(bad)
PY
