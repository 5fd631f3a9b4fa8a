#!/usr/bin/env bash
# `run --resume` reads session.json back and uses no path, host or 9p share
# in it that this lab.conf and kernel cache would not have written there
# (lab/session/session_resume.c; issue 27, item 12): a kernel image outside
# its cache entry, another topology file, a host lab.conf does not have or
# reaches another way, a share of a host folder the workload never shares.
# Each is exit status 1 naming the file and the field, before anything is
# opened. The untampered file, with a host URI spelled another way, a
# prepared folder and the baseline's tree shared, passes the check and
# stops only at the kernel image, which this test never builds. Before
# those checks the file is decoded whole by its table (session_doc.c): a
# member missing or of the wrong type is refused the same way.
# run-all: quick
. "$(dirname "$0")/../lib/common.sh"
# this test's own kernel cache, the one its lab.conf names
unset MGLRULAB_CACHE_DIR

mkdir -p "$TMP/reports" "$TMP/src" "$TMP/tree" "$TMP/cache/prepared/0123456789abcdef"
KEY=$(printf 'mglrulab' | sha256sum | cut -d' ' -f1)
mkdir -p "$TMP/cache/entries/$KEY"
printf '{"tree": "%s"}\n' "$TMP/tree" >"$TMP/cache/entries/$KEY/meta.json"
cat > "$TMP/lab.conf" <<CONF
[lab]
state_dir = $TMP/state
cache_dir = $TMP/cache
reports_dir = $TMP/reports

[kernel base]
source = $TMP/src

[guest tiny]
file = $ROOT/guests/tiny.conf

[host local]
[host remote]
uri = qemu+ssh://root@box/system
pool = labpool
pool_dir = /srv/pool

[workload kb]
type = kernel_build

[run]
kernels = base
guest = tiny
hosts = local remote
workloads = kb
CONF

# resume_with NAME PYTHON [ARG...]: a session NAME whose session.json is a
# started session's, changed by the PYTHON statement on `d`, resumed (with
# the ARGs); prints the exit status.
resume_with() {
	local name=$1 change=$2
	shift 2
	mkdir -p "$TMP/reports/$name/runs"
	python3 - "$TMP/reports/$name/session.json" "$change" "$TMP" "$ROOT" "$KEY" <<'PY' || fail "cannot write session.json"
import json, sys
out, change, tmp, root, key = sys.argv[1:]
d = {"schema": "mglrulab-report/3",
     "generator": {"name": "mglrulab", "version": "0.1.0"},
     "host": {"accel": "tcg"},
     "design": {"baseline": "base", "patched": None},
     "kernels": [{"name": "base", "role": "baseline", "cache_key": key,
                  "bzImage": f"{tmp}/cache/entries/{key}/bzImage"}],
     "guest": {"name": "tiny", "file": f"{root}/guests/tiny.conf"},
     "hosts": [{"name": "local", "uri": "qemu:///embed", "slots": 1},
               {"name": "remote", "uri": "qemu+ssh://box:22/system/?keyfile=/k", "slots": 1,
                "pool": "labpool", "pool_dir": "/srv/pool"}],
     "workloads": [{"name": "kb", "type": "kernel_build", "args": [],
                    "shares": [{"tag": "usr" + u, "host_dir": "/usr/" + u}
                               for u in ("bin", "lib", "lib64", "libexec", "include", "share")] +
                              [{"tag": "hostalt", "host_dir": "/etc/alternatives"},
                               {"tag": "ksrc", "host_dir": tmp + "/tree"},
                               {"tag": "kprep", "host_dir": tmp + "/cache/prepared/0123456789abcdef"}]}],
     "plan": [{"seq": 1, "block": 1, "kernel": "base", "workload": "kb", "warmup": False}]}
exec(change)
json.dump(d, open(out, "w"))
PY
	"$LAB" run --resume "$name" -c "$TMP/lab.conf" "$@" > "$TMP/$name.out" 2> "$TMP/$name.err"
	echo $?
}

expect_refused() {	# NAME FIELD PYTHON
	local rc
	rc=$(resume_with "$1" "$3")
	[ "$rc" -eq 1 ] || { cat "$TMP/$1.err"; fail "$1: run --resume exited $rc, expected 1"; }
	grep -qF "$TMP/reports/$1/session.json: $2: " "$TMP/$1.err" ||
		{ cat "$TMP/$1.err"; fail "$1: the message does not name the file and $2"; }
	grep -q "is gone from the cache" "$TMP/$1.err" && fail "$1: the check let it through"
	head -1 "$TMP/$1.err"
}

# the file as the lab writes it: through the check, stopped at the missing image
rc=$(resume_with good 'pass')
[ "$rc" -eq 1 ] && grep -q "kernel image $TMP/cache/entries/$KEY/bzImage is gone from the cache" "$TMP/good.err" ||
	{ cat "$TMP/good.err"; fail "the untampered session.json did not pass the check"; }

# session.json decoded whole first (lab/report/session_doc.c): a member missing or of
# the wrong type is named before anything in it is used
expect_refused no-design "design" 'del d["design"]'
expect_refused slots-type "design.slots" 'd["design"]["slots"] = "2"'
expect_refused k-path "kernels[0].bzImage" 'd["kernels"][0]["bzImage"] = tmp + "/evil/bzImage"'
expect_refused k-other "kernels[0].bzImage" \
	'd["kernels"][0]["bzImage"] = tmp + "/cache/entries/" + "0" * 64 + "/bzImage"'
expect_refused k-dots "kernels[0].bzImage" \
	'd["kernels"][0]["bzImage"] = tmp + "/cache/entries/" + key + "/../../../evil/bzImage"'
expect_refused k-key "kernels[0].cache_key" 'd["kernels"][0]["cache_key"] = "../../evil"'
expect_refused guest "guest.file" 'd["guest"]["file"] = "/etc/passwd"'
expect_refused host-name "hosts[1].name" 'd["hosts"][1]["name"] = "evil"'
expect_refused host-uri "hosts[1].uri" 'd["hosts"][1]["uri"] = "qemu+ssh://evil/system"'
expect_refused host-local "hosts[0].uri" 'd["hosts"][0]["uri"] = "qemu:///system"'
expect_refused host-pool "hosts[1].pool" 'd["hosts"][1]["pool"] = "default"'
expect_refused host-dir "hosts[1].pool_dir" 'd["hosts"][1]["pool_dir"] = "/etc"'
# shares: 0-5 /usr/bin ... /usr/share, 6 hostalt, 7 ksrc, 8 kprep
expect_refused share-root "workloads[0].shares[0]" 'd["workloads"][0]["shares"][0]["host_dir"] = "/"'
expect_refused share-usr "workloads[0].shares[0]" \
	'd["workloads"][0]["shares"][0] = {"tag": "hostusr", "host_dir": "/usr"}'
expect_refused share-local "workloads[0].shares[0]" 'd["workloads"][0]["shares"][0]["host_dir"] = "/usr/local/bin"'
expect_refused share-etc "workloads[0].shares[6]" \
	'd["workloads"][0]["shares"][6] = {"tag": "hostetc", "host_dir": "/etc"}'
expect_refused share-src "workloads[0].shares[7]" 'd["workloads"][0]["shares"][7]["host_dir"] = "/root"'
expect_refused share-prep "workloads[0].shares[8]" \
	'd["workloads"][0]["shares"][8]["host_dir"] = tmp + "/cache/prepared/0123456789abcdef/../.."'
expect_refused share-twice "workloads[0].shares[1]" \
	'd["workloads"][0]["shares"][1] = {"tag": "usrbin", "host_dir": "/usr/bin"}'
expect_refused share-type "workloads[0].shares" 'd["workloads"][0]["type"] = "yield_pingpong"'

# run --resume --budget: design.sequential.budget_s raised in session.json
# (design written again from the decoded document), every other member as
# it was, before the kernels are held (here the image is gone)
seq='d["design"]["slots"] = 2; d["design"]["sequential"] = {"until": "decided", "method": "m", "alpha": 0.05, "min_runs": 5, "max_runs": 30, "step": 5, "rho": 2.0, "budget_s": 100.0}'
rc=$(resume_with budget "$seq" --budget 200s)
[ "$rc" -eq 1 ] && grep -q "is gone from the cache" "$TMP/budget.err" ||
	{ cat "$TMP/budget.err"; fail "budget: run --resume --budget exited $rc"; }
python3 - "$TMP/reports/budget/session.json" <<'PY' || fail "--resume --budget changed more than the budget"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d["design"]) == ["baseline", "patched", "slots", "sequential"], list(d["design"])
assert d["design"]["sequential"] == {"until": "decided", "method": "m", "alpha": 0.05, "min_runs": 5,
                                     "max_runs": 30, "step": 5, "rho": 2.0, "budget_s": 200.0}, d["design"]
assert d["guest"]["name"] == "tiny" and d["plan"][0]["seq"] == 1 and len(d["hosts"]) == 2
PY
"$LAB" run --resume budget -c "$TMP/lab.conf" --budget 150s > /dev/null 2> "$TMP/budget2.err" &&
	fail "a smaller budget was taken"
grep -q "150 s is not more than the session's budget (200 s)" "$TMP/budget2.err" ||
	{ cat "$TMP/budget2.err"; fail "a smaller budget: not said"; }
echo ok
