#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The manual's wizard captures, kept true (doc/make-captures.sh makes them).

Each doc/captures/NAME.txt starts with a stamp line: the sources that draw that screen,
each with the first 16 hex digits of its sha256 when the capture was made. A block of the
manual (doc/manual.md) after a line "<!-- capture NAME -->" is that capture without its
stamp.

  captures.py stamp TOP NAME   print the stamp line of NAME for the sources as they are
  captures.py update TOP       copy every capture into its block of the manual
  captures.py check TOP        what is stale, one line each; exit 1 when anything is
"""
import hashlib
import os
import re
import sys

# What draws each screen: the screen's own file, the frame and its key hints, and the
# engine files whose sentences it shows. A change to any of them may change the capture.
SOURCES = {
    "disks": ["src/tui/screen_disks.c", "src/tui/tui.c", "src/core/disk/verdict.c"],
    "plan": ["src/tui/screen_plan.c", "src/tui/tui.c", "src/core/convert/plan.c",
             "src/core/convert/predict.c"],
    "passphrase": ["src/tui/screen_pass.c", "src/tui/tui.c", "src/core/base/strength.c"],
    "confirm": ["src/tui/screen_confirm.c", "src/tui/tui.c", "src/tui/typed_word.c"],
    "recovery": ["src/tui/screen_recovery.c", "src/tui/tui.c"],
    "progress": ["src/tui/screen_progress.c", "src/tui/tui.c", "src/core/state/phase.c"],
    "results": ["src/tui/screen_results.c", "src/tui/tui.c", "src/core/convert/results.c"],
}
MARK = re.compile(r"^<!-- capture ([a-z0-9-]+) -->$")
# The document that shows them.
DOC = "doc/manual.md"


def digest(top, path):
    with open(os.path.join(top, path), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def stamp(top, name):
    return "# capture %s: %s" % (name, " ".join(
        "%s=%s" % (p, digest(top, p)) for p in SOURCES[name]))


def capture(top, name):
    """The stamp line and the screen's lines of doc/captures/NAME.txt."""
    with open(os.path.join(top, "doc", "captures", name + ".txt"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return (lines[0] if lines else ""), lines[1:]


def doc_blocks(text):
    """(NAME, first line, last line) of each marked block; lines count from 0."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            continue
        if i + 1 >= len(lines) or lines[i + 1] != "```":
            out.append((m.group(1), None, None))
            continue
        end = next((k for k in range(i + 2, len(lines)) if lines[k] == "```"), None)
        out.append((m.group(1), i + 2, end))
    return out


def check(top):
    bad = []
    for name in SOURCES:
        path = "doc/captures/%s.txt" % name
        if not os.path.exists(os.path.join(top, path)):
            bad.append("%s: missing" % path)
            continue
        have, _ = capture(top, name)
        want = stamp(top, name)
        if have != want:
            old = dict(x.split("=", 1) for x in have.split(": ", 1)[-1].split() if "=" in x)
            changed = [p for p in SOURCES[name] if old.get(p) != digest(top, p)]
            bad.append("%s: made before %s changed; run doc/make-captures.sh" %
                       (path, ", ".join(changed) or "its list of sources"))
    with open(os.path.join(top, DOC), encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    seen = set()
    for name, first, end in doc_blocks(text):
        seen.add(name)
        if name not in SOURCES:
            bad.append("%s: capture %s is not one doc/make-captures.sh makes" % (DOC, name))
        elif first is None or end is None:
            bad.append("%s: the capture %s mark is not followed by a ``` block" % (DOC, name))
        elif lines[first:end] != capture(top, name)[1]:
            bad.append("%s: the %s block is not doc/captures/%s.txt; run "
                       "doc/captures.py update ." % (DOC, name, name))
    for name in SOURCES:
        if name not in seen:
            bad.append("%s: no block marked <!-- capture %s -->" % (DOC, name))
    return bad


def update(top):
    path = os.path.join(top, DOC)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    for name, first, end in reversed(doc_blocks(text)):
        if name in SOURCES and first is not None and end is not None:
            lines[first:end] = capture(top, name)[1]
    with open(path + ".new", "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(path + ".new", path)


def main(argv):
    if len(argv) >= 3 and argv[1] == "stamp":
        print(stamp(argv[2], argv[3]))
        return 0
    if len(argv) == 3 and argv[1] == "update":
        update(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "check":
        bad = check(argv[2])
        for b in bad:
            print(b)
        return 1 if bad else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
