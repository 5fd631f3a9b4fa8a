#!/usr/bin/env bash
# kernel_build end to end under `mglrulab run`: the tiny guest (busybox, no
# libc) builds with the host's toolchain and the baseline kernel's source
# tree, both shared read-only over 9p into a chroot (workloads/lib/sysroot.h).
# prepared = host (as in the demo): the session prepares a build folder
# natively and shares it; the guest compiles exactly the target and
# nothing else (the folder was really up to date at the guest's paths).
# One run: status ok, a positive build time, the target produced (the
# program's artifact check), the vmstat deltas and memory.events present.
# Then on tiny-icount beside mglru_aging: the session gets a slot per CPU,
# and no run overlaps a kernel_build run (it runs alone, docs/hosts.md).
# Paired (run-all): it asserts statuses, files and which runs overlapped,
# never a time on the host's clock; the sessions have state and reports
# of their own (fixture_lab), and the prepared build folder is made under
# the kernel cache's build lock. About 50 s alone.
# run-all: paired
# run-all: cost 50
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
[ -d /etc/alternatives ] && command -v make >/dev/null && command -v gcc >/dev/null ||
	skip "no host toolchain to share (make, gcc, /etc/alternatives)"
fixture_lab kbuild-alone
ALONE=$CONF
fixture_lab kbuild

# session CONF TAG: run it; d= the session folder this run made
# (reports/tests/latest may be another test's)
session() {
	"$LAB" run -c "$1" > "$TMP/out-$2" 2> "$TMP/err-$2"
	local rc=$?
	grep '^run ' "$TMP/err-$2"
	[ $rc -eq 0 ] || { tail -20 "$TMP/err-$2"; fail "the $2 session ($1) exited $rc"; }
	d=$(sed -n 's/^session //p' "$TMP/err-$2" | head -1)
	[ -d "$d" ] || fail "no session directory in the $2 session's output"
}

session "$CONF" kbuild
python3 - "$d" <<'PY' || fail "implausible kernel_build result"
import json, os, sys
d = sys.argv[1]
ctx = json.load(open(os.path.join(d, "session.json")))
w = ctx["workloads"][0]
usr = {"usr" + d: "/usr/" + d for d in ("bin", "lib", "lib64", "libexec", "include", "share")}
assert {s["tag"] for s in w["shares"]} == set(usr) | {"hostalt", "ksrc", "kprep"}, w.get("shares")
# the toolchain's /usr folders one by one, never /usr whole (docs/security.md)
assert all(usr[s["tag"]] == s["host_dir"] for s in w["shares"] if s["tag"] in usr), w["shares"]
shares = {s["tag"]: s["host_dir"] for s in w["shares"]}
# The tree is mounted at its host path, the folder says so.
assert w["params"]["src"] == shares["ksrc"] and w["params"]["prepared"] == "/prep", w["params"]
stamp = open(os.path.join(shares["kprep"], ".mglrulab-prepared")).read()
assert "srctree %s\n" % shares["ksrc"] in stamp, stamp
assert os.path.exists(os.path.join(d, "logs", "prepare-kbuild.log"))
runs = [json.load(open(os.path.join(d, "runs", f))) for f in sorted(os.listdir(os.path.join(d, "runs")))]
assert len(runs) == 1, len(runs)
r = runs[0]
assert r["workload"] == "kbuild" and r["status"] == "ok", (r["workload"], r["status"], r.get("failure"))
m = r["metrics"]
assert m["elapsed_s"] > 0, m
for k in ("pgpgin", "pgmajfault", "pswpin", "pswpout"):
    assert k in m and m[k] >= 0, (k, m)
for k in ("high", "max", "oom", "oom_kill"):
    assert f"memcg_{k}_events" in m, (k, m)
assert all(v >= 0 for v in r["counters"]["vmstat"].values()), "negative vmstat delta"

# The program's own artifact check passed: it says so only after finding it.
built = []
p = os.path.join(r["run_dir"], "results.jsonl")
for line in open(p):
    rec = json.loads(line).get("record") or {}
    if rec.get("name") == "build":
        built.append(rec)
assert built and built[0]["target_built"] and built[0]["target"] == w["params"]["target"], built
# Up to date but for the target: one compile, no objtool or prepare step
# redone: kbuild's per-directory build ran directly, with the environment
# the top-level Makefile exports (recorded on the host).
assert built[0]["compiled"] == 1 and built[0]["steps"] == 1, built
assert w["params"]["artifact"], "no artifact to check"
print("kernel_build: elapsed %.1f s, user %.1f s, pgmajfault %d, memcg_max_events %d, boot %.1f s" %
      (m["elapsed_s"], m["user_s"], m["pgmajfault"], m["memcg_max_events"], r["timings"]["boot_s"]))
PY

# kernel_build alone among two slots (claim_block(), lab/session/session_runs.c)
nproc_here=$(nproc)
[ "$nproc_here" -ge 2 ] || { echo ok; exit 0; }
session "$ALONE" kbuild+aging
python3 - "$d" <<'PY' || fail "kernel_build did not run alone"
import calendar, json, os, sys, time
d = sys.argv[1]
rep = json.load(open(os.path.join(d, "report.json")))
design = rep["design"]
assert design.get("slots", 1) >= 2, design          # icount: a slot per CPU
assert design.get("alone") == ["kbuild"], design
runs = [json.load(open(os.path.join(d, "runs", f))) for f in sorted(os.listdir(os.path.join(d, "runs")))]
assert len(runs) == 3 and all(r["status"] == "ok" for r in runs), [(r["workload"], r["status"]) for r in runs]
span = []
for r in runs:
    t0 = calendar.timegm(time.strptime(r["started"], "%Y-%m-%dT%H:%M:%SZ"))
    span.append((r["workload"], t0, t0 + r["timings"]["wall_s"], r["seq"]))
# "started" has whole seconds: a run that begins as another ends may seem to overlap by up to 1 s
for w, a0, a1, sa in span:
    if w != "kbuild":
        continue
    for v, b0, b1, sb in span:
        if sb != sa:
            assert min(a1, b1) - max(a0, b0) < 1.5, ("overlap", (w, sa, a0, a1), (v, sb, b0, b1))
print("alone: %d runs, kbuild %s s, %d slots" %
      (len(runs), ", ".join("%.0f" % (e - s) for w, s, e, _ in span if w == "kbuild"), design["slots"]))
PY
echo ok
