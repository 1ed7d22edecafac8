#!/bin/bash
# fdewiz VM tests: a power cut in the middle of "fdewiz encrypt" (qemu killed with SIGKILL,
# no clean stop of anything) loses no data: after the "reboot" status sees the interrupted
# conversion, "fdewiz resume" repairs and continues it (and survives a second cut), and the
# real kernel then opens the volume with every file intact.
#
# Boot 1 encrypts /dev/vda2 and is cut at about POWERCUT_CUT_AT percent (default 30);
# boot 2 resumes and is cut again half-way through the rest (POWERCUT_SECOND_CUT=0 skips
# that boot); the last boot resumes to the end and verifies with cryptsetup, e2fsck and
# sha256sum.  The state directory (job record, status, header backup) lives on a second
# virtio disk, /dev/vdb, so it survives the cuts like /var/lib/fdewiz on a real machine.
#
# FDEWIZ names the binary (default: src/fdewiz of this tree); it must not live under /tmp,
# which the guest replaces by a tmpfs.  POWERCUT_PART_MIB sizes the partition (default
# 512): the bigger, the slower the conversion and the easier to cut it mid-way.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-powercut
vm_need_pkgs parted e2fsprogs cryptsetup-bin jq python3

vm_find_fdewiz

MiB=$((1024 * 1024))
part_mib=${POWERCUT_PART_MIB:-512}
cut_at=${POWERCUT_CUT_AT:-30}
# The header takes 16 MiB and the data moves in steps of that size: one step, in percent.
hotzone_pct=$(awk -v p="$part_mib" 'BEGIN { print 100 * 16 / (p - 16) }')
second_cut=${POWERCUT_SECOND_CUT:-1}
t0=$SECONDS

# ---- The disk: GPT, 1 "Small" ext4 of 32 MiB, 2 "Data" ext4 full of files. ----------------
img=$VM_WORK/disk.img
state_img=$VM_WORK/state.img
key=$VM_WORK/key
sums=$VM_WORK/data.sha256
tree=$VM_WORK/tree

# A few thousand files of mixed sizes in nested folders, reproducible (seeded): many
# small ones, some hundreds of medium ones, a few large.  Only their checksumming in the
# guest grows with their size; the conversion takes as long for an empty filesystem.
python3 - "$tree" <<'PY'
import os, random, sys
root = sys.argv[1]
rng = random.Random(20240501)
def put(path, size):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(rng.randbytes(size))
for i in range(2400):
    put(f"{root}/src/d{i % 37:02d}/s{i // 37 % 8}/file{i:04d}.txt", rng.randint(0, 8192))
for i in range(400):
    put(f"{root}/docs/y{2000 + i % 24}/doc{i:03d}.pdf", rng.randint(16 << 10, 64 << 10))
for i in range(4):
    put(f"{root}/media/clip{i:02d}.mkv", rng.randint(1 << 20, 3 << 20))
PY
(cd "$tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$sums"
echo "$VM_NAME: $(wc -l <"$sums") files, $(du -sm "$tree" | cut -f1) MiB in the data tree"
mkdir -p "$VM_WORK/small"
echo "the partition next door" >"$VM_WORK/small/readme.txt"

p2_start=33
truncate -s $((p2_start + part_mib + 1))M "$img"
vm_parted "$img" mklabel gpt \
	mkpart Small ext4 1MiB ${p2_start}MiB \
	mkpart Data ext4 ${p2_start}MiB $((p2_start + part_mib))MiB
# 4 KiB blocks (mke2fs picks 1 KiB below 512 MiB); nodiscard: a discard on an image file
# would punch holes outside the filesystem too.
mkfs.ext4 -q -F -b 4096 -E "offset=$MiB,nodiscard" -L Small -d "$VM_WORK/small" "$img" 32M
mkfs.ext4 -q -F -b 4096 -E "offset=$((p2_start * MiB)),nodiscard" -L Data -d "$tree" \
	"$img" "${part_mib}M"
rm -rf "$tree"
p1_sum()
{
	dd if="$img" bs=1M skip=1 count=$((p2_start - 1)) status=none | sha256sum | cut -d' ' -f1
}
p1_before=$(p1_sum)

# The state directory's disk, and the key (binary, read over 9p by the guest).
truncate -s 64M "$state_img"
mkfs.ext4 -q -F -L fdewiz-state "$state_img"
(umask 077 && head -c 64 /dev/urandom >"$key")
echo "$VM_NAME: images ready after $((SECONDS - t0))s"

# part2 FILTER: a jq filter on partition 2 of "fdewiz list --json" of the image (host).
part2()
{
	"$FDEWIZ" list --json "$img" | jq -e ".disks[0].partitions[] | select(.number == 2) | $1" \
		>/dev/null
}
# header_state: where partition 2's LUKS2 header says the conversion stands, read by
# cryptsetup on the host (read-only loop device over the partition).  Sets header_pct
# (percent encrypted for good) and header_segs (the data segments, one line).
header_state()
{
	local loop dump
	header_pct=
	header_segs=
	loop=$(losetup -r -f --show -o $((p2_start * MiB)) --sizelimit $((part_mib * MiB)) \
		"$img") || return 0
	dump=$(cryptsetup luksDump "$loop" 2>&1 || true)
	losetup -d "$loop"
	# Plain crypt segments are done; the one "in-reencryption" is the hotzone that was
	# being written; "backup-final" starts at the data offset: the volume's size.
	read -r header_pct header_segs < <(awk -v part=$((part_mib * MiB)) '
		function flush() {
			if (type == "crypt" && flags == "" && len ~ /^[0-9]+$/) done += len
			if (flags == "backup-final") off = offset
			if (type != "" && flags !~ /^backup/)
				segs = segs sprintf(" %s:%s%s", type,
					len ~ /^[0-9]+$/ ? len / 1048576 "MiB" : len,
					flags == "" ? "" : "(" flags ")")
			type = ""
		}
		/^Keyslots:/ { exit }
		/^  [0-9]+: / { flush(); type = $2; len = ""; flags = ""; offset = "" }
		/^\toffset:/ { offset = $2 }
		/^\tlength:/ { len = $2 }
		/^\tflags/ { flags = $3 }
		END { flush(); printf "%s%s\n", off ? sprintf("%.1f", 100 * done / (part - off)) : "?", segs }
	' <<<"$dump")
}

vm_check "before: partition 2 is ext4, eligible by shrinking" \
	part2 '.fstype == "ext4" and .verdict.eligible == true and .verdict.strategy == "shrink"'

# ---- Booting, watching, cutting. --------------------------------------------------------
# last_pct LOG MARKER: the last progress percent printed after MARKER ("42.0"), or "".
last_pct()
{
	tr -d '\r' <"$1" | sed -n "/^$2\$/,\$p" | sed -n 's/^encrypting *\([0-9.]*\)%.*/\1/p' |
		tail -n1
}

# first_pct LOG MARKER: the first progress percent printed after MARKER.
first_pct()
{
	tr -d '\r' <"$1" | sed -n "/^$2\$/,\$p" | sed -n 's/^encrypting *\([0-9.]*\)%.*/\1/p' |
		head -n1
}

# show_log LOG: the console, with only every tenth percent of the progress lines.
show_log()
{
	tr -d '\r' <"$1" | awk '
		/^encrypting / { p = int($2 / 10); last = $0
			if (p != shown) { print; shown = p; printed = $0 }; next }
		{ if (last != "" && last != printed) { print last; printed = last }; print }
		END { if (last != "" && last != printed) print last }' shown=-1
}

# boot LOG MARKER CUT_AT SCRIPT ARGS...: boot the VM with the two disks; with CUT_AT, kill
# qemu (a power cut) as soon as a progress line after MARKER reaches CUT_AT percent.
# Exit status of vm-run.sh in $boot_rc, seconds in $boot_s, percent at the cut in $cut_pct.
boot()
{
	local log=$1 marker=$2 at=$3 pidf=$VM_WORK/qemu.pid vr p start=$SECONDS
	shift 3
	rm -f "$pidf"
	cut_pct=
	# Created before the background job opens it: the watch loop below may read it first,
	# and a failing tail under set -e would end the test.
	: >"$log"
	FDEWIZ_VM_PIDFILE=$pidf "$VM_HERE/vm-run.sh" --timeout 600 --disk "$img" \
		--disk "$state_img" "$@" >"$log" 2>&1 &
	vr=$!
	if [ -n "$at" ]; then
		while kill -0 "$vr" 2>/dev/null; do
			# Only the end of the log: cheap, the host has as few cores as qemu wants.
			p=$(tail -c 300 "$log" | tr '\r' '\n' |
				sed -n 's/^encrypting *\([0-9]*\)\..*/\1/p' | tail -n1)
			if [ -n "$p" ] && [ "$p" -ge "$at" ] && [ -s "$pidf" ] &&
				grep -q "^$marker" "$log"; then
				kill -KILL "$(cat "$pidf")" 2>/dev/null || true
				break
			fi
			sleep 0.2
		done
	fi
	boot_rc=0
	wait "$vr" || boot_rc=$?
	boot_s=$((SECONDS - start))
	# Everything the guest printed before it died: the last line is where it was cut.
	cut_pct=$(last_pct "$log" "$marker")
	show_log "$log"
}

between() # between LOW HIGH VALUE
{
	awk -v lo="$1" -v hi="$2" -v v="$3" 'BEGIN { exit !(v != "" && v + 0 >= lo && v + 0 <= hi) }'
}

one_of() # one_of VALUE CHOICE...
{
	local v=$1 c
	shift
	for c in "$@"; do [ "$v" = "$c" ] && return 0; done
	return 1
}

# Guest "POWERCUT-CHECK ok|FAIL what" lines become PASS/FAIL lines here.
guest_checks()
{
	local verdict what
	while read -r verdict what; do
		if [ "$verdict" = ok ]; then vm_pass "$1: $what"; else vm_fail "$1: $what"; fi
	done < <(tr -d '\r' <"$2" | sed -n 's/^POWERCUT-CHECK //p')
}

# json_line LOG KEY: the JSON the guest printed on its "KEY {...}" line.
json_line()
{
	tr -d '\r' <"$1" | sed -n "s/^$2 //p" | tail -n1
}

# after_cut N: host checks of the image after cut N, and where the header says it was.
after_cut()
{
	local n=$1
	vm_check "after cut $n: list shows partition 2 as LUKS2 with an unfinished reencryption" \
		part2 '.fstype == "crypto_LUKS" and .luks.version == 2 and
			.luks.reencrypt_unfinished == true'
	vm_check "after cut $n: partition 2 not eligible, reason luks-unfinished" \
		part2 '.verdict.eligible == false and .verdict.reason == "luks-unfinished"'
	vm_check "after cut $n: partition 1 is byte for byte unchanged" [ "$(p1_sum)" = "$p1_before" ]
	header_state
	echo "$VM_NAME: after cut $n the header has ${header_pct}% encrypted; segments:$header_segs"
	vm_check "after cut $n: the header records a conversion cut mid-way (${header_pct}% done)" \
		between 5 95 "$header_pct"
	vm_check "after cut $n: the progress shown (${cut_pct:-?}%) never ran ahead of the header" \
		between 0 "$(awk -v h="$header_pct" 'BEGIN { print h + 0.1 }')" "${cut_pct:-x}"
}

# after_reboot WHAT LOG HEADER_PCT: status right after a reboot, and resume's first step.
after_reboot()
{
	local what=$1 log=$2 hp=$3 js st pct src backup first
	js=$(json_line "$log" POWERCUT-STATUS-JSON)
	echo "$VM_NAME: $what: status --json: $js"
	IFS='|' read -r st pct src backup < <(jq -r '.conversions[0] |
		[.state, .percent, .source, .header_backup] | map(. // "" | tostring) | join("|")' \
		<<<"$js" 2>/dev/null || true) || true
	vm_check "$what: status says interrupted or needs-repair (got '$st')" \
		one_of "$st" interrupted needs-repair
	vm_check "$what: status finds the job record on the state disk (source '$src')" \
		[ "$src" = fdewiz ]
	vm_check "$what: status still names the header backup (got '$backup')" \
		[ "$backup" = /var/lib/fdewiz/vda2.header ]
	vm_check "$what: status percent ${pct:0:5} is at most the header's $hp, by < 10" \
		between "$(awk -v h="$hp" 'BEGIN { print h - 10 }')" \
		"$(awk -v h="$hp" 'BEGIN { print h + 0.1 }')" "$pct"
	# The first step shown completes the hotzone cut mid-write and the one after it.
	first=$(first_pct "$log" POWERCUT-RESUME-START)
	vm_check "$what: resume goes on from the header's $hp% (first step ${first:-?}%)" \
		between "$hp" "$(awk -v h="$hp" -v z="$hotzone_pct" 'BEGIN { print h + 3 * z }')" \
		"${first:-x}"
	guest_checks "$what" "$log"
}

# ---- Boot 1: encrypt, cut. --------------------------------------------------------------
echo "$VM_NAME: boot 1: fdewiz encrypt /dev/vda2, power cut at ${cut_at}%"
boot "$VM_WORK/boot1.log" POWERCUT-ENCRYPT-START "$cut_at" \
	"$VM_HERE/guest/powercut-encrypt.sh" "$FDEWIZ" "$key"
cut1=$cut_pct
echo "$VM_NAME: boot 1 took ${boot_s}s; last progress before the cut: ${cut1:-none}%"
vm_check "boot 1: vm-run reports the power cut (exit 137, got $boot_rc)" [ "$boot_rc" = 137 ]
vm_check "boot 1: the cut came mid-way, between 5 and 95% (last progress ${cut1:-none}%)" \
	between 5 95 "$cut1"
after_cut 1
hp1=$header_pct
last_hp=$hp1

# ---- Boot 2: resume, cut again (optional). ----------------------------------------------
resume_args=("$FDEWIZ" "$key" "$sums")
final_pidcheck=pidcheck
cut2=
if [ "$second_cut" = 1 ] && between 5 95 "$hp1"; then
	cut_at2=$(awk -v c="$hp1" 'BEGIN { printf "%d", c + (100 - c) / 2 }')
	echo "$VM_NAME: boot 2: status, fdewiz resume, power cut again at ${cut_at2}%"
	boot "$VM_WORK/boot2.log" POWERCUT-RESUME-START "$cut_at2" \
		"$VM_HERE/guest/powercut-resume.sh" "${resume_args[@]}" cut pidcheck
	cut2=$cut_pct
	echo "$VM_NAME: boot 2 took ${boot_s}s; last progress before the cut: ${cut2:-none}%"
	after_reboot "boot 2" "$VM_WORK/boot2.log" "$hp1"
	vm_check "boot 2: vm-run reports the second power cut (exit 137, got $boot_rc)" \
		[ "$boot_rc" = 137 ]
	after_cut 2
	vm_check "boot 2: the second cut came after progress (header ${hp1}% -> ${header_pct}%)" \
		between "$(awk -v h="$hp1" 'BEGIN { print h + 5 }')" 95 "$header_pct"
	last_hp=$header_pct
	final_pidcheck=
fi

# ---- Last boot: resume to the end, verify with the real kernel. --------------------------
echo "$VM_NAME: last boot: status, fdewiz resume to the end, verification"
log3=$VM_WORK/boot3.log
boot "$log3" POWERCUT-RESUME-START "" "$VM_HERE/guest/powercut-resume.sh" \
	"${resume_args[@]}" final $final_pidcheck
echo "$VM_NAME: last boot took ${boot_s}s"
after_reboot "last boot" "$log3" "$last_hp"
vm_check "last boot: guest half exits 0 (got $boot_rc)" [ "$boot_rc" = 0 ]
vm_check "last boot: guest printed POWERCUT-OK" grep -q '^POWERCUT-OK' "$log3"
js=$(json_line "$log3" POWERCUT-STATUS-AFTER-JSON)
echo "$VM_NAME: status --json after resume: $js"
complete() { jq -e '.conversions[0].state == "complete"' <<<"$js" >/dev/null 2>&1; }
vm_check "last boot: status says complete after resume" complete

vm_check "at the end: list shows partition 2 as finished LUKS2 (reason already-luks)" \
	part2 '.luks.reencrypt_unfinished == false and .verdict.reason == "already-luks"'
vm_check "at the end: partition 1 is byte for byte unchanged" [ "$(p1_sum)" = "$p1_before" ]

echo "$VM_NAME: total ${SECONDS}s; power cut at ${cut1:-?}% shown / ${hp1:-?}% in the header${cut2:+, then at ${cut2}% / ${last_hp}%}"
vm_finish
