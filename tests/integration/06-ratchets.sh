#!/usr/bin/env bash
# make check-style's ratchets accept this tree, and refuse a tree that
# breaks them: scripts/json-lookups (JSON key lookups outside the codecs,
# docs/layout.md's definition read from docs/layout.md) over its ceiling,
# scripts/long-files (files in lab/ over 800 lines) with a long file not
# listed, listed without a reason, or listed when it is no longer long,
# scripts/long-functions over its ceiling, and scripts/duplicate-code
# (runs of 8 or more equal lines in two places of lab/) over its ceiling.
# run-all: quick
set -u
cd "$(dirname "$0")/../.."
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$(make -s check-style 2>&1) || fail "the tree itself breaks a ratchet: $out"

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t"/docs "$t"/lab/report "$t"/lab/session
cat > "$t"/docs/layout.md <<'EOF'
# A layout

Counted as `grep -cE
'json_object_get|jget_(num|str)|jpath\('` summed over lab/*/*.c, less
the codecs' files (scripts/json-lookups reads this list):

    report_view.c
    run_record.c

## Files over 800 lines

- `lab/report/report_model.c`: several jobs

## Who may include whom
EOF
lookup='	json_t *v = json_object_get(o, "x");'
printf '%s\n' "$lookup" "$lookup" "$lookup" > "$t"/lab/report/report_view.c
printf '%s\n' "$lookup" > "$t"/lab/report/run_record.c
printf '%s\n' "$lookup" 'double d = jget_num(o, "y"); const json_t *p = jpath(o, "a.b");' \
	> "$t"/lab/session/session_output.c
seq 900 > "$t"/lab/report/report_model.c

# --- json-lookups: the codecs' lookups do not count; the others do, once per line ---
out=$(scripts/json-lookups --max 2 "$t" 2>&1) || fail "2 lookups outside the codecs refused at 2: $out"
grep -q '^2 lab/session/session_output.c$' <<<"$out" || fail "per-file count: $out"
grep -q '^total: 2 ' <<<"$out" || fail "total: $out"
out=$(scripts/json-lookups --max 3 "$t" 2>&1) || fail "under the ceiling refused: $out"
grep -q 'lower MAX_JSON_LOOKUPS' <<<"$out" || fail "no hint to lower the ceiling: $out"
# a new lookup outside a codec
printf '%s\n' "$lookup" > "$t"/lab/session/session_new.c
out=$(scripts/json-lookups --max 2 "$t" 2>&1) && fail "3 lookups passed a ceiling of 2: $out"
grep -q '3 JSON key lookups outside the codecs, at most 2 allowed' <<<"$out" || fail "json-lookups: $out"
# the same lookup in a file the list names as a codec does not count
sed -i 's/^    run_record.c$/    run_record.c session_new.c/' "$t"/docs/layout.md
mv "$t"/lab/session/session_new.c "$t"/lab/report/session_new.c
out=$(scripts/json-lookups --max 2 "$t" 2>&1) || fail "a codec named in the list was counted: $out"
# a codec the list names that is not there
sed -i 's/^    report_view.c$/    report_view.c gone.c/' "$t"/docs/layout.md
out=$(scripts/json-lookups --max 2 "$t" 2>&1) && fail "a missing codec passed: $out"
grep -q 'codecs that are not in lab/\*/: gone.c' <<<"$out" || fail "missing codec: $out"
sed -i 's/ gone.c$//' "$t"/docs/layout.md
# the definition is the document's: without its grep there is no count
sed -i 's/grep -cE/grep -E/' "$t"/docs/layout.md
out=$(scripts/json-lookups --max 2 "$t" 2>&1) && fail "no definition, yet a count: $out"
sed -i 's/grep -E/grep -cE/' "$t"/docs/layout.md

# --- long-files ---
out=$(scripts/long-files "$t" 2>&1) || fail "a listed long file refused: $out"
grep -q '^900 lab/report/report_model.c$' <<<"$out" || fail "long-files: $out"
# a new long file
seq 801 > "$t"/lab/session/session_big.c
out=$(scripts/long-files "$t" 2>&1) && fail "an unlisted file of 801 lines passed: $out"
grep -q 'lab/session/session_big.c has 801 lines, over 800' <<<"$out" || fail "unlisted: $out"
# 800 lines is not over
seq 800 > "$t"/lab/session/session_big.c
out=$(scripts/long-files "$t" 2>&1) || fail "a file of 800 lines refused: $out"
# listed without a reason
seq 801 > "$t"/lab/session/session_big.c
sed -i 's/^## Who may include whom$/- `lab\/session\/session_big.c`:\n\n&/' "$t"/docs/layout.md
out=$(scripts/long-files "$t" 2>&1) && fail "an entry without a reason passed: $out"
grep -q 'lists lab/session/session_big.c without a reason' <<<"$out" || fail "no reason: $out"
sed -i 's/^- `lab\/session\/session_big.c`:$/& one job by design/' "$t"/docs/layout.md
out=$(scripts/long-files "$t" 2>&1) || fail "an entry with its reason refused: $out"
# a listed file split below the limit: its entry must go
seq 400 > "$t"/lab/session/session_big.c
out=$(scripts/long-files "$t" 2>&1) && fail "a stale entry passed: $out"
grep -q 'lists lab/session/session_big.c, which is not over 800 lines' <<<"$out" || fail "stale: $out"

# --- duplicate-code: runs of 8 equal lines, comments, blanks and trivia aside ---
d="$t"/dup
mkdir -p "$d"/lab/a "$d"/lab/b
logic() {	# eight lines of logic, then one that differs by $1
	for i in 1 2 3 4 5 6 7 8; do printf '\tv%s = f%s(x, y);\n' "$i" "$i"; done
	printf '\tlast = %s;\n' "$1"
}
{ echo 'int one(void)'; echo '{'; logic 1; echo '}'; } > "$d"/lab/a/one.c
# the same logic with other comments, blank lines, braces and spacing
{
	echo '/* another file */'; echo 'int two(void)'; echo '{'
	logic 2 | sed '3s/^/\n\t{\n/; 5s/$/  \/\/ why/; 6s/ = /   =   /; 7s/^/\t\/*\n\t * a comment\n\t *\/\n/'
	echo '}'
} > "$d"/lab/b/two.c
out=$(scripts/duplicate-code --max 1 "$d" 2>&1) || fail "one pair refused at 1: $out"
grep -q '^lab/a/one.c:3-10 ~ lab/b/two.c:' <<<"$out" || fail "duplicate-code pair: $out"
grep -q '^total: 1 pairs' <<<"$out" || fail "duplicate-code total: $out"
out=$(scripts/duplicate-code --max 2 "$d" 2>&1) || fail "under the ceiling refused: $out"
grep -q 'lower MAX_DUPLICATE_PAIRS' <<<"$out" || fail "no hint to lower the ceiling: $out"
# a third copy: two more pairs, over the ceiling
{ echo 'static int three(void)'; echo '{'; logic 3; echo '}'; } > "$d"/lab/b/three.h
out=$(scripts/duplicate-code --max 1 "$d" 2>&1) && fail "3 pairs passed a ceiling of 1: $out"
grep -q '3 pairs of duplicated lines, at most 1 allowed' <<<"$out" || fail "duplicate-code: $out"
# seven equal lines are not a pair; trivia between them does not make one
{ echo 'int three(void)'; echo '{'; logic 3 | sed '4d'; printf '\treturn 0;\n\t}\n\tbreak;\n'; echo '}'; } \
	> "$d"/lab/b/three.h
out=$(scripts/duplicate-code --max 1 "$d" 2>&1) || fail "seven equal lines counted: $out"
# a file repeating its own lines is not a pair with itself shifted by one
seq 20 | sed 's/.*/\tx();/' > "$d"/lab/b/three.h
out=$(scripts/duplicate-code --max 1 "$d" 2>&1) || fail "a run overlapping itself counted: $out"

# --- long-functions ---
{
	echo 'int f(void)'
	echo '{'
	seq 90 | sed 's/.*/\tx();/'
	echo '}'
} > "$t"/lab/report/long.c
out=$(scripts/long-functions --max 1 "$t"/lab 2>&1) || fail "one long function refused at 1: $out"
out=$(scripts/long-functions --max 0 "$t"/lab 2>&1) && fail "a long function passed --max 0: $out"
grep -q 'long.c:2 f 92' <<<"$out" || fail "long-functions: $out"

echo "ratchets: the tree passes; a lookup over the ceiling, an unlisted, unexplained or stale long file and a long function or a duplicated run over the ceilings are refused"
