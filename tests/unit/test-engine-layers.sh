#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The engine's layers (HACKING.md): src/core is in folders, lowest first
#   base < state < luks2 < disk < boot < bench < convert
# and a file includes only headers of its own folder (by bare name) or of a folder below
# (as "folder/name.h"); and no engine function calls, directly or around a loop, back into
# the file it came from: no call cycle between files, inside a folder or across folders; nor
# between the files of each front-end (src/cli, src/tui: any function that is not static).
# A folder's internal header (NAME_internal.h) is included only inside that folder: never
# by another folder nor by the front-ends (src/cli, src/tui); a unit test may, to test it.
# The front-ends include of each folder only its public header, FOLDER/FOLDER_api.h.
# Each rule is first shown to fail on a copy of the tree with a planted upward include, a
# planted cycle (in the engine and in src/cli) and a planted include of an internal header,
# then checked on the tree
# itself. Cost: about a second (six passes of python3 over the sources, no build).
set -euo pipefail

src=${FDEWIZ_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/src
fails=0 checks=0

# check_layers CORE: prints each include that goes up a layer, sideways into another
# folder by bare name, or to a folder that is not a layer; 1 when there is one.
check_layers()
{
	python3 - "$1" <<'PY'
import glob, os, re, sys
core = sys.argv[1]
order = ['base', 'state', 'luks2', 'disk', 'boot', 'bench', 'convert']
rank = {name: i for i, name in enumerate(order)}
bad = 0
folders = sorted(d for d in os.listdir(core)
                 if os.path.isdir(os.path.join(core, d)) and not d.startswith('.'))
for d in folders:
    if d not in rank:
        print(f'src/core/{d}: a folder that is not a layer (add it to the order)')
        bad = 1
if glob.glob(os.path.join(core, '*.[ch]')):
    print('src/core: files outside the layer folders:',
          ' '.join(sorted(os.path.basename(f) for f in glob.glob(os.path.join(core, '*.[ch]')))))
    bad = 1
for f in sorted(glob.glob(os.path.join(core, '*', '*.[ch]'))):
    here = f.split(os.sep)[-2]
    for n, line in enumerate(open(f, errors='replace'), 1):
        m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
        if not m or m.group(1) == 'config.h':
            continue
        inc = m.group(1)
        where = f'src/core/{here}/{os.path.basename(f)}:{n}: "{inc}"'
        if '/' not in inc:
            if not os.path.exists(os.path.join(core, here, inc)):
                print(f'{where}: not in {here}/; name its folder ("layer/{inc}")')
                bad = 1
            continue
        layer = inc.split('/')[0]
        if layer not in rank or not os.path.exists(os.path.join(core, inc)):
            print(f'{where}: no such engine header')
            bad = 1
        elif rank[layer] > rank.get(here, -1):
            print(f'{where}: {here} includes {layer}, a layer above it')
            bad = 1
sys.exit(bad)
PY
}

# check_internal SRC: prints each include of a folder's internal header from outside that
# folder (another engine folder, or a front-end); 1 when there is one.
check_internal()
{
	python3 - "$1" <<'PY'
import glob, os, re, sys
src = sys.argv[1]
bad = 0
for f in sorted(glob.glob(os.path.join(src, '**', '*.[ch]'), recursive=True)):
    rel = os.path.relpath(f, src)
    for n, line in enumerate(open(f, errors='replace'), 1):
        m = re.match(r'\s*#\s*include\s*"([^"]+_internal\.h)"', line)
        if m and '/' in m.group(1):
            print(f'src/{rel}:{n}: "{m.group(1)}": an internal header, outside its folder')
            bad = 1
sys.exit(bad)
PY
}

# check_frontends SRC: prints each include of an engine header by a front-end (src/cli,
# src/tui) other than a folder's one public header, core/FOLDER/FOLDER_api.h; 1 when there
# is one.
check_frontends()
{
	python3 - "$1" <<'PY'
import glob, os, re, sys
src = sys.argv[1]
bad = 0
for front in ('cli', 'tui'):
    for f in sorted(glob.glob(os.path.join(src, front, '*.[ch]'))):
        rel = os.path.relpath(f, src)
        for n, line in enumerate(open(f, errors='replace'), 1):
            m = re.match(r'\s*#\s*include\s*"core/([^/"]+)/([^"]+)"', line)
            if m and m.group(2) != m.group(1) + '_api.h':
                print(f'src/{rel}:{n}: "core/{m.group(1)}/{m.group(2)}": include '
                      f'"core/{m.group(1)}/{m.group(1)}_api.h", the folder\'s public header')
                bad = 1
sys.exit(bad)
PY
}

# check_cycles DIR [PATTERN]: prints each set of files under DIR whose functions (named
# by PATTERN: the engine's fdw_ ones by default; a front-end's every function that is not
# static) call each other around a loop; 1 when there is one.
check_cycles()
{
	python3 - "$1" "${2:-fdw_[a-z0-9_]+}" <<'PY'
import collections, glob, os, re, sys
files = sorted(glob.glob(sys.argv[1] + '/**/*.c', recursive=True))
name = sys.argv[2]
defined = {}
for c in files:
    for m in re.finditer(r'^(?!static)[a-z][^\n;]*?\b(' + name + r')\s*\([^;{]*\)\s*\{',
                         open(c, errors='replace').read(), re.M):
        if m.group(1) not in ('if', 'while', 'for', 'switch', 'return', 'sizeof'):
            defined[m.group(1)] = c
calls = collections.defaultdict(set)
for c in files:
    for m in re.finditer(r'\b(' + name + r')\s*\(', open(c, errors='replace').read()):
        d = defined.get(m.group(1))
        if d and d != c:
            calls[c].add(d)
# Tarjan's strongly connected components, iteratively.
index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
for root in files:
    if root in index:
        continue
    work = [(root, iter(sorted(calls[root])))]
    index[root] = low[root] = counter[0]; counter[0] += 1; stack.append(root); on.add(root)
    while work:
        v, it = work[-1]
        w = next(it, None)
        if w is not None:
            if w not in index:
                index[w] = low[w] = counter[0]; counter[0] += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(calls[w]))))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))
for comp in comps:
    print('call cycle:', ' '.join(os.path.relpath(c, sys.argv[1]) for c in comp))
sys.exit(1 if comps else 0)
PY
}

check()
{
	checks=$((checks + 1))
	if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fails=$((fails + 1)); fi
}
# fails_on RULE DIR: the rule fails there; what it says is shown, indented.
fails_on()
{
	local out rc=0
	out=$("$@") || rc=$?
	[ -z "$out" ] || sed 's/^/     | /' <<<"$out"
	[ "$rc" -ne 0 ]
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A front-end's functions, whatever their prefix (cli_, cmd_, list_, tui_, screen_...).
front_names='[a-z][a-z0-9_]*'

# The rules catch what they are for: a copy of the engine with one upward include, and one
# with a cycle (a base file calling back into a state file that calls it).
cp -r "$src/core" "$tmp/up"
printf '#include "convert/plan.h"\n' >>"$tmp/up/base/clock.c"
desc="the layer rule fails on a planted upward include (base -> convert)"
check fails_on check_layers "$tmp/up"
cp -r "$src/core" "$tmp/cycle"
printf 'int fdw_planted_a(void);\nint fdw_planted_b(void)\n{\n\treturn fdw_planted_a();\n}\n' \
	>>"$tmp/cycle/base/clock.c"
printf 'int fdw_planted_b(void);\nint fdw_planted_a(void)\n{\n\treturn fdw_planted_b();\n}\n' \
	>>"$tmp/cycle/state/job.c"
desc="the cycle rule fails on a planted call cycle (base/clock.c <-> state/job.c)"
check fails_on check_cycles "$tmp/cycle"

# The front-ends too: main.c calls the commands, so a command calling back into main.c
# (as the escaping and the usage error once did) closes a circle.
cp -r "$src/cli" "$tmp/cli-cycle"
printf 'void planted_in_main(void)\n{\n}\n' >>"$tmp/cli-cycle/main.c"
printf 'void planted_in_list(void)\n{\n\tplanted_in_main();\n}\n' >>"$tmp/cli-cycle/cmd_list.c"
desc="the cycle rule fails on a planted circle in src/cli (cmd_list.c <-> main.c)"
check fails_on check_cycles "$tmp/cli-cycle" "$front_names"

mkdir "$tmp/inside"
cp -r "$src/tui" "$tmp/inside/"
printf '#include "core/convert/encrypt_internal.h"\n' >>"$tmp/inside/tui/tui.c"
desc="the internal-header rule fails on a planted include (tui -> convert/encrypt_internal.h)"
check fails_on check_internal "$tmp/inside"

mkdir "$tmp/front"
cp -r "$src/tui" "$tmp/front/"
printf '#include "core/convert/plan.h"\n' >>"$tmp/front/tui/tui.c"
desc="the public-header rule fails on a planted include (tui -> convert/plan.h)"
check fails_on check_frontends "$tmp/front"

desc="every engine include stays in its folder or goes down a layer"
check check_layers "$src/core"
desc="no call cycle between the engine's files"
check check_cycles "$src/core"
desc="no call cycle between the command line's files"
check check_cycles "$src/cli" "$front_names"
desc="no call cycle between the wizard's files"
check check_cycles "$src/tui" "$front_names"
desc="internal headers stay in their folders"
check check_internal "$src"
desc="the front-ends include only each folder's public header"
check check_frontends "$src"

echo "test-engine-layers: $((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
