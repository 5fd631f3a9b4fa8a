#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tests/integration/94's judge: per group of tests/fixtures/gen-b4-threads.py,
the series `mglrulab watch scan` assembled against the one `b4 am` makes
of the same mails, offline (-m, --offline-mode, no cache; the caller runs
this without a network). Compared: which mails are the series (cover
letter and patches), its version, its patches in order, and the trees
`git am` makes of the two mboxes on a toy repository.

  b4-compare.py OUT STATUS_JSON MGLRULAB CONF STATE

Runs under Debian's /usr/bin/python3, which has b4's module; b4 runs in
this process (its command line parser and its `am`), not once per group,
to keep the test quick. Prints the figures; exits 1 when a group differs
in a way docs/watch.md does not list (KNOWN below), or a listed
difference is no longer seen (the list must stay true)."""
import contextlib
import io
import json
import logging
import mailbox
import os
import re
import subprocess
import sys

import b4
import b4.command

# docs/watch.md, "Where b4 and the watch differ": the generator marks each
# group that must show one of these; any other difference fails.
KNOWN = {
    # b4 am reads the thread of the Message-ID it is given: a newer version
    # posted in a thread of its own (found by lore's search, which offline
    # b4 has not) is not in it. The watch links versions across threads by
    # title and author, or change-id:, and takes the newer one.
    "newer-version-elsewhere": lambda b, w: b["version"] < w["version"],
    # A newer version without a cover letter whose patch 1 replies to the
    # older version's cover letter: b4 takes that for the newer one's
    # (the first patch's parent with a diffstat and no diff); the watch
    # leaves it to its version (its text and base-commit: are the older
    # version's). The patches and the trees are the same.
    # "[PATCH v2.1 1/3]", a fixed-up v2: b4 0.12 takes a revision only
    # from a bracket word that is all "v" and digits (^v\d+$), so it reads
    # version 1; the watch reads 2, newer than v1 and not older than v2.
    "version-dot": lambda b, w: (b["version"] == 1 and w["version"] == 2 and
                                 b["patches"] == w["patches"]),
    "older-cover": lambda b, w: (w["cover"] is None and b["cover"] is not None and
                                 b["patches"] == w["patches"] and b["version"] == w["version"]
                                 and w["trees_agree"]),
}


def run_b4(mbox, msgid, outdir, name):
    """b4 am on @mbox for @msgid: (version, cover msgid, [patch msgids], complete) or None."""
    args = b4.command.setup_parser().parse_args(
        ["--offline-mode", "am", "-C", "-m", mbox, "-o", outdir, "-n", name, msgid])
    b4.can_network = False
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        try:
            args.func(args)
        except SystemExit:
            pass
    mbx = os.path.join(outdir, name + ".mbx")
    if not os.path.exists(mbx):
        return None
    text = open(mbx, encoding="utf-8", errors="replace").read()
    subjects = re.findall(r"^Subject: (.*)$", text, re.M)
    mids = re.findall(r"^Message-Id: <(.*)>$", text, re.M | re.I)
    cover = None
    cpath = os.path.join(outdir, name + ".cover")
    if os.path.exists(cpath):
        m = re.search(r"^Message-Id: <(.*)>$", open(cpath, errors="replace").read(), re.M | re.I)
        cover = m.group(1) if m else None
    version, n = 1, len(mids)
    if subjects:
        m = re.search(r"\bv(\d+)\b", subjects[0].split("]")[0])
        version = int(m.group(1)) if m else 1
        m = re.search(r"(\d+)/(\d+)\]", subjects[0])
        n = int(m.group(2)) if m else 1
    return {"version": version, "cover": cover, "patches": mids, "mbox": mbx,
            "complete": len(mids) == n and "incomplete" not in log.getvalue().lower()}


TRAILER = re.compile(r"^(Reviewed-by|Acked-by|Tested-by): .*$", re.M | re.I)


def b4_trailers(mbx):
    """Per Message-ID, the review trailers b4 wrote into the patch's commit message."""
    out = {}
    for msg in mailbox.mbox(mbx):
        body = msg.get_payload(decode=True).decode("utf-8", "replace")
        out[msg["Message-Id"].strip("<> ")] = sorted({m.group(0) for m in TRAILER.finditer(body)})
    return out


def watch_trailers(s):
    """Per Message-ID of a patch, the trailers watch status gives it (the cover's: none)."""
    by_k = {x["k"]: x["message_id"] for x in s["mails"]}
    out = {mid: [] for k, mid in by_k.items() if k > 0}
    for t in s["trailers"]:
        for k in t["patches"]:
            if k > 0:
                out[by_k[k]].append(t["trailer"])
    return {mid: sorted(set(v)) for mid, v in out.items()}


def git(repo, *args, inp=None):
    return subprocess.run(["git", "-C", repo, "-c", "gc.auto=0", "-c", "maintenance.auto=false",
                           *args], input=inp, capture_output=True, text=True)


def am_tree(repo, mbox):
    """
    The tree git am makes of @mbox on the toy repository's base, or why
    not. The watch's mbox starts with the cover letter, which the lab
    leaves out when it applies (kbuild_apply_patch()): --empty=drop.
    """
    git(repo, "am", "--abort")
    git(repo, "checkout", "-q", "--detach", "base")
    r = git(repo, "am", "-q", "--keep-cr", "--empty=drop", mbox)
    if r.returncode:
        return "git am failed: " + (r.stderr or r.stdout).strip().splitlines()[0]
    return git(repo, "rev-parse", "HEAD^{tree}").stdout.strip()


def main():
    out, status, lab, conf, state = sys.argv[1:6]
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    series = json.load(open(status))["series"]  # watch status --json: {"series": [...], "disk": {...}}
    b4.logger.setLevel(logging.CRITICAL)
    repo = os.path.join(out, "toy")
    subprocess.run(["git", "init", "-q", repo], check=True)
    with open(os.path.join(repo, "README"), "w") as f:
        f.write("a toy tree for the series of tests/integration/94\n")
    git(repo, "add", "README")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "tag", "base")
    os.makedirs(os.path.join(out, "b4"), exist_ok=True)
    by_group = {}
    for s in series:
        m = re.match(r"g(\d+)\.", s["root"])
        if m:
            by_group.setdefault(int(m.group(1)), []).append(s)
    figures = {"series": 0, "version": 0, "patches": 0, "trees": 0, "trailers": 0}
    unexpected, known, reviewed = [], {}, 0
    for grp in manifest:
        g = grp["group"]
        b = run_b4(os.path.join(out, "mbox", f"{g}.mbox"), grp["probe"],
                   os.path.join(out, "b4"), str(g))
        live = [s for s in by_group.get(g, []) if s["state"] in ("queued", "incomplete")]
        w = None
        if len(live) == 1:
            s = live[0]
            w = {"version": s["version"], "complete": s["state"] == "queued",
                 "trailers": watch_trailers(s),
                 "cover": next((x["message_id"] for x in s["mails"] if x["k"] == 0), None),
                 "patches": [x["message_id"] for x in s["mails"] if x["k"] > 0], "id": s["id"]}
        why = []
        if b is None or w is None:
            if not (b is None and not live):
                why.append(f"series: b4 {'none' if b is None else b['patches']}, watch "
                           f"{[(s['root'], s['state']) for s in by_group.get(g, [])]}")
            else:
                for k in figures:
                    figures[k] += 1
        else:
            same = {"series": (b["cover"], sorted(b["patches"]), b["complete"]) ==
                    (w["cover"], sorted(w["patches"]), w["complete"]),
                    "version": b["version"] == w["version"],
                    "patches": b["patches"] == w["patches"]}
            wm = os.path.join(out, "b4", f"{g}.watch.mbox")
            with open(wm, "wb") as f:
                subprocess.run([lab, "-q", "watch", "status", "-c", conf, "--state", state,
                                "--mbox", str(w["id"])], stdout=f, check=True)
            tb, tw = am_tree(repo, b["mbox"]), am_tree(repo, wm)
            same["trees"] = w["trees_agree"] = tb == tw and not tb.startswith("git am")
            # the review trailers of follow-up replies, per patch, as b4 adds them
            reviewed += any(b4_trailers(b["mbox"]).values())
            same["trailers"] = b4_trailers(b["mbox"]) == {
                mid: v for mid, v in w["trailers"].items() if mid in b["patches"]} \
                if same["patches"] else False
            for k, ok in same.items():
                figures[k] += ok
                if not ok:
                    why.append(f"{k}: b4 {b if k != 'trees' else tb}, watch "
                               f"{w if k != 'trees' else tw}" + (
                                   f" (b4's {b4_trailers(b['mbox'])})" if k == "trailers"
                                   else ""))
        d = grp["diff"]
        if d:
            if why and b and w and KNOWN[d](b, w):
                known[d] = known.get(d, 0) + 1
            else:
                unexpected.append(f"group {g} ({grp['kind']}): expected the known difference "
                                  f"'{d}', got: {why or 'agreement'}")
        elif why:
            unexpected.append(f"group {g} ({grp['kind']}): " + "; ".join(why))
    n = len(manifest)
    print(f"b4-compare: {n} threads; agreement with b4: series {figures['series']}, "
          f"version {figures['version']}, patches {figures['patches']}, "
          f"trees {figures['trees']}, review trailers {figures['trailers']} "
          f"({reviewed} with trailers)")
    for d, c in sorted(known.items()):
        print(f"b4-compare: known difference '{d}': {c} threads")
    for u in unexpected:
        print("b4-compare: " + u)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
