#!/usr/bin/env bash
# The small variant of every seed-thread lab (examples/*.small.conf) end to
# end: its own kernels (a .c-only series each, cached after the first CI
# run; about a minute each on an empty cache), its own guest and workload
# sizes, and a report that shows the thread's table (the layout of each
# workload). What is cut for CI's time, and said here:
#  - 2 runs per kernel (`--runs 2`), not the file's 6: this checks that the
#    lab runs and reports, not its verdicts (bench/seed-labs runs each file
#    as written and gives the times and CVs quoted in examples/README.md);
#  - one workload of each type (seed 000's yield_private is yield_shared
#    with another mm), and kernel_build left out (30 s a run; tests 54 and
#    64 run kernel_build in a session).
# About 2 minutes with the kernels cached (166 s with seed 000 in a
# clean-clone CI run, which took CI past its 25 minutes).
# why this long: three labs end to end (seed 000 is the default lab, which
# the session tests run), each a session of fresh guest boots on its own
# guest: 138 s of sessions on 2026-12-06 (82 s of it seed 002's, whose
# mglru_aging runs under icount with attribution runs after the verdict),
# and on an empty cache each seed's two kernels first (28-36 s a seed).
# run-all: paired
# run-all: cost 120
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source

confs=()
trap 'rm -f "${confs[@]+"${confs[@]}"}"; rm -rf "$TMP"' EXIT
ls examples/*.small.conf >/dev/null 2>&1 || fail "no examples/*.small.conf"
for f in examples/*.small.conf; do
	name=$(basename "$f" .small.conf)
	# Seed 000's kernels and workload are the default lab.conf's (baseline,
	# patched, yield_pingpong with its layout): tests 60-63 and 70 run them.
	[ "$name" = seed-000-sched-yield-mm ] && continue
	# A copy beside the original (its relative paths hold), reporting to $TMP.
	conf=$(mktemp "examples/.t59.XXXXXX.conf")
	confs+=("$conf")
	sed -e '/^reports_dir *=/d' -e "s#^\[lab\]\$#[lab]\nreports_dir = $TMP/$name#" "$f" > "$conf"
	private_state "$conf"	# paired: a state folder of its own
	"$LAB" config check "$conf" --json > "$TMP/$name.cfg.json" 2> "$TMP/err" ||
		fail "$f: config check: $(cat "$TMP/err")"
	wl=$(python3 - "$TMP/$name.cfg.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
seen, names = set(), []
for w in d["workloads"]:
    if w["name"] in d["run"]["workloads"] and w["type"] not in seen | {"kernel_build"}:
        seen.add(w["type"])
        names.append(w["name"])
print(" ".join(names))
PY
) || fail "$f: cannot read its workloads"
	[ -n "$wl" ] || fail "$f: no workload but kernel_build"
	args=()
	for w in $wl; do args+=(--workloads "$w"); done
	t0=$(date +%s)
	"$LAB" -q kernel build -c "$conf" > "$TMP/$name.kernel.log" 2>&1 ||
		fail "$f: kernel build: $(tail -5 "$TMP/$name.kernel.log")"
	t1=$(date +%s)
	"$LAB" run --ab -c "$conf" --runs 2 "${args[@]}" --fail-on none -q \
		> "$TMP/$name.txt" 2> "$TMP/$name.err" ||
		fail "$f: run --ab exited $?: $(tail -5 "$TMP/$name.err")"
	t2=$(date +%s)
	d=$(readlink -f "$TMP/$name/latest") || fail "$f: no session folder"
	python3 - "$d/report.json" "$TMP/$name.cfg.json" "$TMP/$name.txt" $wl <<'PY' || fail "$f: report"
import json, math, sys
rep = json.load(open(sys.argv[1]))
cfg = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
wanted = sys.argv[4:]
runs = [r for r in rep["runs"] if not r.get("warmup")]
bad = [r for r in runs if r.get("status") != "ok"]
assert not bad, ("failed runs", [(r["kernel"], r["workload"], r.get("failure")) for r in bad])
for w in wanted:
    per = {}
    for r in runs:
        if r["workload"] == w:
            per[r["kernel"]] = per.get(r["kernel"], 0) + 1
    assert sorted(per.values()) == [2, 2], (w, "expected 2 runs per kernel", per)
    prim = [r for r in rep["results"] if r["workload"] == w and r.get("primary")]
    assert prim, (w, "no primary metric in the report")
    for r in prim:
        for side in ("baseline", "patched"):
            v = r[side]["values"]
            assert len(v) == 2 and all(isinstance(x, (int, float)) and math.isfinite(x) for x in v), \
                (w, r["metric"], side, v)
types = {w["name"]: w["type"] for w in cfg["workloads"]}
titles = {"yield_pingpong": "Context switches per second per CPU",
          "numa_workload": "Aging passes and PTEs scanned per node",
          "mglru_aging": "MGLRU aging, time per generation",
          "thp_scale": "thpscale"}
for w in wanted:
    t = titles.get(types[w])
    assert t is None or t in text, (w, "the text report lacks the thread's table", t)
# a lab's note (seeds 000, 003: why the host's clock) in the report and its text
note = cfg["run"].get("note")
if note:
    assert rep.get("note") == note, ("the report lacks the lab's note", rep.get("note"))
    assert "note     " + note.split()[0] in text, "the text report lacks the note"
# attribute = all (seed 002 under icount): the functions its stand-in changes, named
if cfg["run"]["attribute"] == "all":
    a = rep["attribution"]
    assert "unavailable" not in a, a.get("unavailable")
    for w in a["workloads"]:
        assert "windows" in w, (w["workload"], w.get("error") or w.get("skipped"))
        t = w["windows"][0]
        named = [f["function"] for f in t["functions"] if f["named"]]
        print(f'{w["workload"]}: kernel {t["base_kernel_per_unit"]:.0f} -> '
              f'{t["patched_kernel_per_unit"]:.0f} instructions per unit; named {named[:5]}; '
              f'noise {t["noise"]:.0f} ({t["noise_function"]}), {t["bursts"]} bursty above it, '
              f'{w["runs_per_kernel"]} runs per kernel')
        if types[w["workload"]] == "mglru_aging":
            assert "lru_gen_update_size" in named, named
            # the batching saves instructions where it is named (spread 0); the
            # kernel's total also holds page faults and slab refills whose noise
            # is as large (+188 to -4,500 per generation over six sessions)
            saved = sum(f["delta"] for f in t["functions"] if f["named"])
            assert saved < 0, (saved, t)
print(", ".join(f'{r["workload"]} {r["metric"]} {r["verdict"]}'
                for r in rep["results"] if r.get("primary") and r["workload"] in wanted))
PY
	echo "$name: kernels $((t1 - t0)) s, session $((t2 - t1)) s"
done
echo ok
