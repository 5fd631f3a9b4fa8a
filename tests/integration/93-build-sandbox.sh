#!/usr/bin/env bash
# A series posted to the list is the attacker's code: its Makefile lines,
# Kconfig and sources run when the lab builds it. On a toy kernel tree (a
# git repository whose Makefile has the targets the lab's build runs, in a
# second) the watch takes six hostile series, each a single mail:
#   1. a Makefile that reads a root-only file, copies it into the build
#      folder, writes outside the tree, and fails;
#   2. `#include` of that file's absolute path;
#   3. a build that never ends (`sleep`), past [lab] build_timeout;
#   4. a Kconfig syntax error (configure fails);
#   5. a base-commit whose tree does not build, and a compile error;
#   6. a patch that does not apply (its reply names the patch and hunk,
#      not where the lab keeps the series' file).
# Each is the series' failure, with its reply; the watch goes on to the
# next and exits 0. Nothing of the secret reaches reply.eml, index.html,
# `watch status`, the terminal or the cache; no file appears outside the
# tree; the build ran as the sandbox's user (not root) with no network
# but lo. The replies quote only what kbuild_public_error() allows: the
# Kconfig and compiler errors at their file and line, no host path. Then
# `kernel build` (the path of `run --ab`) of series 1: the same. No guest,
# a toy kernel: about 40 s, most of it the time limit of series 3.
# run-all: paired
# run-all: cost 20
# run-all: quick
. "$(dirname "$0")/../lib/common.sh"
command -v bwrap >/dev/null || fail "bubblewrap is not installed (scripts/install-deps)"
# A kernel cache of its own (CI's MGLRULAB_CACHE_DIR would win over lab.conf's):
# toy kernels have no place in the shared one, and the checks look into it.
unset MGLRULAB_CACHE_DIR

# The secret: root-only (the lab's user's only), in a folder of its own.
mkdir -m 700 "$TMP/private" || fail "cannot create $TMP/private"
SECRET=$TMP/private/key
echo "TOPSECRET-$RANDOM$RANDOM" > "$SECRET" && chmod 600 "$SECRET" || fail "cannot write the secret"
WORD=$(cat "$SECRET")
ESCAPE=$TMP/escaped

# The toy tree: commit 1 does not build (its bzImage fails), commit 2 does.
TOY=$TMP/toy
mkdir -p "$TOY" && cd "$TOY" || fail "cannot create $TOY"
# toy_makefile RECIPE...: the tree's Makefile, bzImage made by RECIPE's lines.
toy_makefile() {
	{
		printf '%s\n' "# A kernel tree in miniature: the targets mglrulab's build runs." \
			'O ?= .' '.PHONY: tinyconfig olddefconfig bzImage' 'tinyconfig:' \
			'	@echo "CONFIG_TOY=y" > $(O)/.config' 'olddefconfig:' \
			'	@awk '"'"'/^bad/ { print FILENAME ":" NR ": syntax error"; bad = 1 } END { exit bad }'"'"' Kconfig' \
			'	@test -f $(O)/.config' 'bzImage:'
		printf '\t%s\n' "$@"
	} > Makefile
}
toy_makefile '@false'
printf 'config TOY\n\tbool "toy"\n' > Kconfig
printf 'int toy(void)\n{\n\treturn 0;\n}\n' > toy.c
g() { git -c user.name=t -c user.email=t@example.org -c commit.gpgsign=false "$@"; }
g init -q && g add -A && g commit -q -m "toy: a tree that does not build" || fail "git failed"
OLD=$(git rev-parse HEAD)
toy_makefile '@mkdir -p $(O)/arch/x86/boot' '$(CC) -c toy.c -o $(O)/toy.o' \
	'@cp $(O)/toy.o $(O)/arch/x86/boot/bzImage' '@echo "0000000000000000 T toy" > $(O)/System.map'
g commit -q -a -m "toy: it builds" || fail "git failed"

# The five series, made with git format-patch on a scratch copy.
mkdir -p "$TMP/archive/new" "$TMP/archive/cur" "$TMP/archive/tmp"
n=0
post() {	# post SUBJECT [BASE]: the scratch copy's change as one mail
	n=$((n + 1))
	g commit -q -a -m "$1" || fail "cannot commit $1"
	g format-patch -1 --stdout ${2:+--base=$2} > "$TMP/p$n.mbox" || fail "format-patch failed"
	{ echo "Message-ID: <hostile-$n@example.org>"; sed 1d "$TMP/p$n.mbox"; } \
		> "$TMP/archive/new/100000000$n.mail"
	g reset -q --hard "$3"
}
git clone -q "$TOY" "$TMP/w" && cd "$TMP/w" || fail "cannot clone the toy tree"
HEAD=$(git rev-parse HEAD)
# 1: the Makefile reads the secret, writes outside the tree, and fails.
sed -i "s#^bzImage:#bzImage:\n\t-cat $SECRET /etc/shadow\n\t-cp $SECRET \$(O)/leak\n\t-echo pwned > $ESCAPE\n\t-id -u > \$(O)/uid\n\t-cat /proc/net/dev > \$(O)/net\n\t@echo \"leaking: \$\$(cat $SECRET)\"\n\t@false#" Makefile
post "toy: build it our way" "" "$HEAD"
cp "$TMP/p1.mbox" "$TMP/escape.mbox"
# 2: an #include of the secret's absolute path.
sed -i "1i #include \"$SECRET\"" toy.c
post "toy: include a header" "" "$HEAD"
# 3: a build that never ends.
sed -i 's#^bzImage:#bzImage:\n\tsleep 600#' Makefile
post "toy: take our time" "" "$HEAD"
# 4: a Kconfig syntax error.
echo "bad syntax here" >> Kconfig
post "toy: a new option" "" "$HEAD"
# 5: on the old commit that does not build, with a compile error of its own.
sed -i 's#return 0;#return = 0;#' toy.c
post "toy: return something" "$OLD" "$HEAD"
# 6: a patch whose context is not in the tree (on a commit never posted).
sed -i 's#return 0;#return 1;#' toy.c && g commit -q -a -m "toy: not posted"
sed -i 's#return 1;#return 2;#' toy.c
post "toy: return two" "" "$HEAD"
cd "$ROOT" || fail "cannot go back to $ROOT"
grep -q "^base-commit: $OLD" "$TMP/archive/new/1000000005.mail" || fail "series 5 names no base-commit"

CONF=$TMP/lab.conf
cat > "$CONF" <<EOF
[lab]
state_dir = $TMP/lab
cache_dir = $TMP/cache
reports_dir = $TMP/reports
build_timeout = 15s
[kernel toy]
source = $TOY
config = tinyconfig
[guest tiny]
file = $ROOT/guests/tiny.conf
[workload yield]
type = yield_pingpong
[run]
kernels = toy
guest = tiny
workloads = yield
[watch]
archive = $TMP/archive
paths = Makefile Kconfig toy.c
baseline = toy
history = measure
interval = 1s
EOF

t0=$(date +%s)
"$LAB" watch run -c "$CONF" --once > "$TMP/watch.out" 2> "$TMP/watch.err"
rc=$?
t1=$(date +%s)
cat "$TMP/watch.err"
[ $rc -eq 0 ] || fail "watch run exited $rc (a hostile series stopped the watch)"
W=$TMP/lab/watch
"$LAB" -q watch status -c "$CONF" --json > "$TMP/status.json" || fail "watch status failed"
"$LAB" -q watch status -c "$CONF" > "$TMP/status.txt" || fail "watch status failed"

python3 - "$W" "$TMP/status.json" "$OLD" <<'PY' || fail "the series did not end as expected"
import email, email.policy, json, sys
w, status, old = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
by_root = {s["root"]: s for s in status["series"]}
want = {
    1: ("does not build", None),
    2: ("does not build", None),
    3: ("build timed out", "did not finish within 15s"),
    4: ("does not configure", "Kconfig:3: syntax error"),
    5: ("does not build", "toy.c:3:16: error:"),
    6: ("does not apply", 'patch 1 of the series does not apply: "[PATCH] toy: return two"'),
}
for i, (tag, quote) in want.items():
    s = by_root[f"hostile-{i}@example.org"]
    assert s["state"] == "failed", (i, s)
    m = email.message_from_binary_file(open(f"{w}/series/{s['id']}/reply.eml", "rb"),
                                       policy=email.policy.default)
    body = m.get_body(("plain",)).get_content()
    assert tag in m["Subject"], (i, m["Subject"])
    if quote:
        assert quote in body, (i, quote, body)
    for host in ("/tmp/", "/var/", "/root", "/home"):
        assert host not in body, (i, host, body)
    if i == 5:
        assert f"base-commit {old}" in body and "does not build here" in body, body
print("six hostile series failed, each with its reply")
PY

# Nothing of the secret anywhere the public or the lab's user reads.
for f in "$W"/series/*/reply.eml "$W/index.html" "$TMP/status.txt" "$TMP/status.json" \
	"$TMP/watch.out" "$TMP/watch.err"; do
	grep -q "$WORD" "$f" && fail "the secret reached $f"
done
grep -rqs "$WORD" "$TMP/cache" && fail "the secret reached the kernel cache: $(grep -rls "$WORD" "$TMP/cache")"
[ -e "$ESCAPE" ] && fail "the series wrote $ESCAPE, outside its tree"
# Series 1's build folder: what it saw of itself and of the network.
# (the watch's kernels share one build folder: incremental, like a tree's)
b1=$(ls -d "$TMP"/cache/build/*-watch 2>/dev/null | head -1)
[ -n "$b1" ] || fail "no build folder of the watch's series"
[ -s "$b1/uid" ] || fail "series 1's build left no uid"
if [ "$(id -u)" -eq 0 ]; then
	[ "$(cat "$b1/uid")" = "$(id -u mglrulab-build)" ] ||
		fail "series 1 was built as uid $(cat "$b1/uid"), not the sandbox's user"
fi
[ "$(tail -n +3 "$b1/net" | cut -d: -f1 | tr -d ' ')" = lo ] ||
	fail "series 1's build saw a network: $(cat "$b1/net")"
[ -e "$b1/leak" ] && fail "series 1 copied the secret into its build folder"
# The time limit: series 3 stopped at 15 s, not after its 600-s sleep.
[ $((t1 - t0)) -lt 120 ] || fail "the watch took $((t1 - t0)) s: the time limit did not stop series 3"

# `kernel build` (run --ab's path) of series 1: a failed build, the secret
# nowhere in what it printed, nothing outside the tree. Before it, the work
# tree goes back to root, as a cache from before the sandbox has it: given
# to the build user again, its files are not rewritten (git's index knows
# the owner: left stale, the reset would rewrite every file, and make
# would rebuild the whole kernel).
printf '[kernel evil]\nfrom = toy\nseries = %s\n' "$TMP/escape.mbox" >> "$CONF"
"$LAB" -q kernel build --json -c "$CONF" toy > "$TMP/toy.json" || fail "the toy kernel does not build"
tree=$(json_get "$(dirname "$(json_get "$TMP/toy.json" 'd[0]["bzImage"]')")/meta.json" 'd["tree"]')
[ -f "$tree/Kconfig" ] || fail "no work tree at '$tree'"
if [ "$(id -u)" -eq 0 ]; then
	# (the index then says root owns each file, as root's git wrote it)
	chown -R 0:0 "$tree" && git -c safe.directory='*' -C "$tree" update-index -q --refresh ||
		fail "cannot give $tree back to root"
fi
# (git rewrites a file as a new one: its inode tells; its stamp may be
# settled by kbuild_mtime.c either way). On this toy tree git keeps the
# files even without the refresh; on the 6.12 tree it rewrote all 86,630
# (kbuild.c, prepare_tree()): the check guards, it does not reproduce.
inode=$(stat -c %i "$tree/Kconfig")
"$LAB" kernel build -c "$CONF" evil > "$TMP/kb.out" 2> "$TMP/kb.err" && fail "series 1 built"
[ "$(stat -c %i "$tree/Kconfig")" = "$inode" ] ||
	fail "a file no series touched was rewritten when the tree changed owner"
[ "$(id -u)" -ne 0 ] || [ "$(stat -c %U "$tree/Kconfig")" = mglrulab-build ] ||
	fail "the work tree was not given to the build user"
grep -q "the kernel build failed" "$TMP/kb.err" || fail "kernel build did not say why: $(cat "$TMP/kb.err")"
grep -q "$WORD" "$TMP/kb.out" "$TMP/kb.err" && fail "kernel build printed the secret"
[ -e "$ESCAPE" ] && fail "kernel build let the series write $ESCAPE"
echo ok
