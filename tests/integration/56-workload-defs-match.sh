#!/usr/bin/env bash
# lab/workload/workload_defs.c (what lab.conf accepts, with defaults) and the guest
# programs (what they accept, per --help) must agree: every parameter of
# every workload is an option of its program with the same default, and
# every option a program documents has a definition.
. "$(dirname "$0")/50-workload-lib.bash"

[ -x ./mglrulab ] || make -s mglrulab >/dev/null || fail "cannot build mglrulab"
conf=$TMP/lab.conf
cat >"$conf" <<EOC
[kernel baseline]
source = /usr/src/linux-source-6.12.tar.xz
[guest tiny]
file = $PWD/guests/tiny.conf
[run]
kernels = baseline
workloads = yield_pingpong will_it_scale numa_workload kernel_build mglru_aging
EOC
./mglrulab config check "$conf" --json >"$TMP/conf.json" 2>"$TMP/conf.err" ||
	skip "mglrulab config check does not accept a minimal lab here: $(head -3 "$TMP/conf.err")"

python3 - "$TMP/conf.json" "$G" <<'PY' || fail "definitions and programs disagree"
import json, subprocess, sys
conf, g = json.load(open(sys.argv[1])), sys.argv[2]
bad = 0
for w in conf['workloads']:
    prog = f"{g}/{w['type']}"
    helptext = subprocess.run([prog, '--help'], capture_output=True, text=True).stdout
    documented = {}
    for l in helptext.splitlines():
        if l.startswith('  --') and l.endswith(')') and '(default: ' in l:
            d = l.rsplit('(default: ', 1)[1][:-1]
            documented[l.split()[0][2:]] = '' if d == '""' else d
    for k, v in w['params'].items():
        if k not in documented:
            print(f"{w['type']}: parameter {k} is not an option of the program", file=sys.stderr)
            bad = 1
        elif documented[k] != v:
            print(f"{w['type']}: {k} defaults to '{v}' in lab/workload/workload_defs.c but '{documented[k]}' in the program", file=sys.stderr)
            bad = 1
    for k in sorted(set(documented) - set(w["params"])):
        print(f"{w['type']}: option --{k} has no definition in lab/workload/workload_defs.c", file=sys.stderr)
        bad = 1
sys.exit(bad)
PY
echo "ok: every workload parameter is a program option and vice versa"
