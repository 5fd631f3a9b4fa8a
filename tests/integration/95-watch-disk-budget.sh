#!/usr/bin/env bash
# [watch] disk_budget: a synthetic watch (a queue, series folders, kernel
# cache entries, work trees and build folders of known sizes and ages, no
# kernel, no guest) over its budget. `watch prune --dry-run` names what
# would go and removes nothing; `watch prune` removes the least recently
# used until the rest fits, exactly the items expected, and keeps the
# baseline's tree and build folder, everything of a series being measured,
# a cache entry another process holds and lab.conf's own kernels; a link
# planted in what goes is removed as a link, never followed. The queue
# keeps the pruned series' verdict and reply (status says "pruned"), the
# index says so. Then `watch run --once` prunes by itself at the start of
# its pass. About 5 s.
# run-all: quick
. "$(dirname "$0")/../lib/common.sh"

MiB=1048576
now=$(date +%s)
day=86400
export MGLRULAB_CACHE_DIR=$TMP/cache
C=$TMP/cache
W=$TMP/w

# The baseline: a git source of two commits; the series being measured
# names the first as its base-commit.
src=$TMP/src
mkdir -p "$src" && git -C "$src" init -q && echo one > "$src/Makefile" &&
	git -C "$src" add Makefile && git -C "$src" -c user.name=t -c user.email=t@t commit -qm one &&
	old=$(git -C "$src" rev-parse HEAD) && old_tree=$(git -C "$src" rev-parse 'HEAD^{tree}') &&
	echo two > "$src/Makefile" &&
	git -C "$src" -c user.name=t -c user.email=t@t commit -qam two &&
	base_tree=$(git -C "$src" rev-parse 'HEAD^{tree}') || fail "cannot make the git source"
T1=git-${base_tree:0:16}	# the baseline's tree
T3=git-${old_tree:0:16}		# the base-commit of series 3, which is running
T2=git-2222222222222222		# the base-commit of series 2, decided

conf=$TMP/lab.conf
cat > "$conf" <<EOF || fail "cannot write $conf"
[lab]
state_dir = $TMP/lab
[kernel base]
source = $src
[guest tiny]
file = $ROOT/guests/tiny.conf
[run]
kernels = base
workloads = yield_pingpong
[watch]
baseline = base
disk_budget = 17M
EOF

# fill PATH MiB AGE_DAYS: a file of that many MiB (allocated), and every
# name under PATH's top folder as old as that.
fill() {
	mkdir -p "$(dirname "$1")" && head -c $(($2 * MiB)) /dev/zero > "$1" || fail "cannot write $1"
}
age() {
	find "$1" -exec touch -h -d "@$((now - $2 * day))" {} + || fail "cannot date $1"
}
entry() {	# entry KEYCHAR NAME MiB AGE
	local k
	k=$(printf '%064d' 0 | tr 0 "$1")
	mkdir -p "$C/entries/$k" && printf '{"key": "%s", "name": "%s"}\n' "$k" "$2" > "$C/entries/$k/meta.json" ||
		fail "cannot write the entry $2"
	fill "$C/entries/$k/bzImage" "$3"
	age "$C/entries/$k" "$4"
	echo "$C/entries/$k"
}

# The queue: series 1, 2 and 4 decided, series 3 running (its session on
# base-commit $old).
"$LAB" -q watch status -c "$conf" --state "$W" > /dev/null || fail "cannot create the queue"
python3 - "$W/watch.sqlite" "$now" "$old" <<'PY' || fail "cannot fill the queue"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
now = int(sys.argv[2])
for i, state, bc in ((1, "decided", None), (2, "decided", "2" * 40), (3, "running", sys.argv[3]),
                     (4, "decided", None)):
    db.execute("INSERT INTO series(id, root, version, n, title, title_key, author, base_commit,"
               " state, verdict, first_seen, updated) VALUES(?, ?, 1, 1, ?, ?, 'a@b', ?, ?, ?, ?, ?)",
               (i, "s%d@x" % i, "mm: series %d" % i, "mm: series %d" % i, bc, state,
                "yield ops: ~" if state == "decided" else None, now, now))
db.commit()
PY

# Series folders: reports of known sizes and ages; the small files stay whatever happens.
outside=$TMP/outside
mkdir -p "$outside" && echo precious > "$outside/file" || fail "cannot write $outside"
# a link in what goes, to a folder and a file outside: removed as links
mkdir -p "$W/series/1/reports" && ln -s "$outside" "$W/series/1/reports/link-dir" &&
	ln -s "$outside/file" "$W/series/1/reports/link-file" || fail "cannot plant the links"
for s in 1:3:10 2:2:5 3:4:9 4:1:1; do
	IFS=: read -r id mib days <<< "$s"
	fill "$W/series/$id/reports/latest/runs/0001.json" "$mib"
	echo "reply $id" > "$W/series/$id/reply.eml" && echo "mbox $id" > "$W/series/$id/series.mbox" &&
		echo '{}' > "$W/series/$id/summary.json" || fail "cannot write series $id"
	age "$W/series/$id/reports" "$days"
done

# Cache entries: series 1's goes; series 2's is held; series 3's is its
# series' (running); lab.conf's baseline is not the watch's.
eA=$(entry a watch-1 2 8)
eB=$(entry b watch-2-base 2 9)
eC=$(entry c watch-3 2 10)
eD=$(entry d base 5 30)

# Work trees and build folders: the baseline's (with the watch's build
# folder on it, and the baseline's own), series 2's base-commit (goes, with
# its build folder, .objects and log), series 3's base-commit (running).
fill "$C/trees/$T1/big" 6 && age "$C/trees/$T1" 30
fill "$C/build/$T1-base/vmlinux" 1 && age "$C/build/$T1-base" 30
fill "$C/build/$T1-watch/vmlinux" 3 && age "$C/build/$T1-watch" 30
mkdir -p "$C/trees/$T2" && ln -s "$outside" "$C/trees/$T2/escape" && fill "$C/trees/$T2/Makefile" 2 &&
	echo /nowhere > "$C/trees/$T2.objects" && mkdir -p "$C/logs" && echo log > "$C/logs/$T2-watch.log" ||
	fail "cannot write $T2"
fill "$C/build/$T2-watch/vmlinux" 2
age "$C/trees/$T2" 7 && age "$C/build/$T2-watch" 7 && age "$C/trees/$T2.objects" 7 && age "$C/logs/$T2-watch.log" 7
fill "$C/trees/$T3/Makefile" 1 && fill "$C/build/$T3-watch/vmlinux" 1
age "$C/trees/$T3" 11 && age "$C/build/$T3-watch" 11

# Counted: reports 3+2+4+1, entries 2+2+2, the watch's build folder on the
# baseline 3, tree 2 with its build folder 4, tree 3 with its 2: 25 MiB
# (and a few KiB of folders). Least recently used first, of what may go:
# series 1's reports (10 days, 3), entry watch-1 (8 days, 2), tree 2 (7
# days, 4): then 16 MiB, within 17. Series 2's and 4's reports stay.

# The entry of series 2's base is held, as a session holds its kernel.
exec 9< "$eB/meta.json"
flock -s 9 || fail "cannot hold $eB"

"$LAB" watch prune -c "$conf" --state "$W" --dry-run > "$TMP/dry.out" 2>&1 9<&- || { cat "$TMP/dry.out"; fail "watch prune --dry-run failed"; }
cat "$TMP/dry.out"
[ "$(grep -c 'would remove .*last changed' "$TMP/dry.out")" = 3 ] || fail "the dry run would not remove 3 items"
for what in "series 1 reports" "entry aaaaaaaaaaaa (watch-1)" "work tree $T2"; do
	grep -q "would remove $what (" "$TMP/dry.out" || fail "the dry run would not remove $what"
done
grep -q "keeps entry bbbbbbbbbbbb (watch-2-base).*held" "$TMP/dry.out" || fail "the dry run does not say the held entry stays"
[ -d "$W/series/1/reports" ] && [ -d "$eA" ] && [ -d "$C/trees/$T2" ] || fail "the dry run removed something"

"$LAB" watch prune -c "$conf" --state "$W" > "$TMP/prune.out" 2>&1 9<&-
rc=$?
cat "$TMP/prune.out"
exec 9<&-
[ $rc -eq 0 ] || fail "watch prune exited $rc"

# exactly these went
[ ! -e "$W/series/1/reports" ] || fail "series 1's reports (the least recently used) stayed"
[ ! -e "$eA" ] || fail "the entry of series 1's kernel stayed"
for p in "$C/trees/$T2" "$C/build/$T2-watch" "$C/trees/$T2.objects" "$C/logs/$T2-watch.log"; do
	[ ! -e "$p" ] && [ ! -L "$p" ] || fail "$p stayed with its tree"
done
for id in 2 4; do
	[ -f "$W/series/$id/reports/latest/runs/0001.json" ] || fail "series $id's reports went: more than the budget asks"
done
# what never goes
[ -f "$W/series/3/reports/latest/runs/0001.json" ] || fail "the reports of a series being measured went"
[ -f "$eB/bzImage" ] || fail "a held entry went"
[ -f "$eC/bzImage" ] || fail "the entry of a series being measured went"
[ -f "$eD/bzImage" ] || fail "lab.conf's baseline kernel went"
[ -f "$C/trees/$T1/big" ] && [ -f "$C/build/$T1-base/vmlinux" ] && [ -f "$C/build/$T1-watch/vmlinux" ] ||
	fail "the baseline's tree or build folders went"
[ -f "$C/trees/$T3/Makefile" ] && [ -f "$C/build/$T3-watch/vmlinux" ] ||
	fail "the base-commit tree of a series being measured went"
# links were not followed
[ "$(cat "$outside/file" 2>/dev/null)" = precious ] || fail "a link in a pruned folder was followed"
# the series' small files and its place in the queue stay
for f in reply.eml series.mbox summary.json; do
	[ -f "$W/series/1/$f" ] || fail "series 1's $f went with its reports"
done
grep -q 'disk_budget' "$W/series/1/pruned.txt" || fail "series 1's folder does not say its reports were pruned"
grep -q 'removed series 1 reports (3.0 MiB, last changed .*least recently used' "$TMP/prune.out" ||
	fail "the pass does not say what went and why"
grep -q 'removed 3 items, 9\.[0-9] MiB' "$TMP/prune.out" || fail "the pass does not say what it freed"
ls -a "$W/series/1" "$C/trees" "$C/build" | grep -q '^\.pruned\.' && fail "a pass left a .pruned. folder"

"$LAB" -q watch status -c "$conf" --state "$W" --json > "$TMP/status.json" || fail "watch status --json failed"
python3 - "$TMP/status.json" <<'PY' || fail "status does not say what was pruned, or the disk"
import json, sys
st = json.load(open(sys.argv[1]))
by = {s["id"]: s for s in st["series"]}
assert "pruned" in by[1] and by[1]["verdict"] == "yield ops: ~", by[1]
assert all("pruned" not in by[i] for i in (2, 3, 4)), by
d = st["disk"]
assert d["budget"] == 17 << 20 and 15 << 20 < d["bytes"] <= 17 << 20 and not d["over"], d
assert d["pinned_bytes"] >= 11 << 20, d
PY
"$LAB" -q watch status -c "$conf" --state "$W" > "$TMP/status.txt" || fail "watch status failed"
grep -q 'reports pruned .*verdict and reply kept' "$TMP/status.txt" || fail "status text does not say series 1 was pruned"
grep -qE '^disk: 1[56](\.[0-9])? MiB of 17 MiB \(\[watch\] disk_budget\)' "$TMP/status.txt" || fail "status text does not show the disk: $(tail -1 "$TMP/status.txt")"
grep -q 'series/1/pruned.txt' "$W/index.html" || fail "the index does not say series 1's reports were pruned"
grep -q 'series/2/reports/' "$W/index.html" && fail "the index links a report that does not exist"

# Within the budget, a second pass removes nothing.
"$LAB" watch prune -c "$conf" --state "$W" > "$TMP/again.out" 2>&1 || fail "a second prune failed"
grep -q 'within' "$TMP/again.out" && ! grep -q 'removed' "$TMP/again.out" || fail "a second pass removed more: $(cat "$TMP/again.out")"

# `watch run` prunes at the start of its pass: series 3 ends, the budget
# shrinks to 9M; an empty archive queues nothing to measure.
python3 -c 'import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute("UPDATE series SET state = '"'decided'"' WHERE id = 3"); db.commit()' "$W/watch.sqlite" ||
	fail "cannot end series 3"
sed -i 's/^disk_budget = .*/disk_budget = 9M/' "$conf"
mkdir -p "$TMP/md/cur" "$TMP/md/new"
"$LAB" watch run --once -c "$conf" --state "$W" --archive "$TMP/md" > "$TMP/run.out" 2>&1 || { cat "$TMP/run.out"; fail "watch run --once failed"; }
cat "$TMP/run.out"
# least recently used of what may go now: tree 3 (11 days), entry
# watch-3 (10), series 3's reports (9): 16 - 2 - 2 - 4 = 8 MiB, within 9
[ ! -e "$C/trees/$T3" ] && [ ! -e "$eC" ] && [ ! -e "$W/series/3/reports" ] || fail "watch run did not prune what series 3 left"
[ -f "$eB/bzImage" ] || fail "watch run pruned more than its budget asks (the entry of series 2's base)"
grep -q 'removed 3 items, 8\.0 MiB' "$TMP/run.out" || fail "watch run does not say what it freed"
[ -f "$W/series/2/reports/latest/runs/0001.json" ] && [ -f "$W/series/4/reports/latest/runs/0001.json" ] ||
	fail "watch run pruned more than its budget asks"
[ -f "$C/build/$T1-watch/vmlinux" ] || fail "watch run removed the baseline's build folder"

# Off: nothing goes, status says so.
sed -i 's/^disk_budget = .*/disk_budget = off/' "$conf"
"$LAB" -q watch status -c "$conf" --state "$W" | grep -q '^disk: .*no budget' || fail "status does not say the budget is off"
echo ok
