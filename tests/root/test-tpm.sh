#!/bin/bash
# `fdewiz tpm status|enrol|remove` on a LUKS2 partition of an image, with real clevis
# (clevis-luks, clevis-tpm2) and a real software TPM 2.0 (swtpm, reached through
# FDEWIZ_TEST_TPM_TCTI; FDEWIZ_TEST_TPM_SYSFS stands for /sys/class/tpm):
#  - refusals, each with the header unchanged (sha256): no TPM, a wrong passphrase, a PCR
#    list that is not one, a partition that is not LUKS2; 'encrypt --tpm' of a partition
#    that holds no installed system, and with --at-restart;
#  - enrol: a keyslot and a clevis token (cryptsetup luksDump before and after), what the
#    TPM unseals opens the volume, the passphrase still does; enrol again re-seals (one
#    binding, in a new keyslot);
#  - another TPM (a fresh swtpm state, as a cleared TPM or another computer): status says
#    the TPM refuses it, the passphrase and the recovery key still open the volume; enrol
#    seals it to that TPM;
#  - remove: the token and its keyslot gone, the passphrase and recovery keyslots stay;
#    again: nothing to remove;
#  - the data area (everything after the LUKS2 header) unchanged throughout (sha256).
# The boot with nothing typed is test-vm-... (TPM under QEMU); this one is about the
# volume. Cost: about 10 s (clevis and swtpm, a small image).
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds clevis swtpm cryptsetup parted losetup sha256sum timeout

img_test_init

export FDEWIZ_STATE_DIR=$IMG_TMP/state
res=$IMG_TMP/res
key=$IMG_TMP/key
printf 'tpm passphrase 28' >"$key"
img=$IMG_TMP/disk.img

# swtpm_start STATE: a TPM 2.0 with its state in STATE, on a free port pair.
port=$((20000 + RANDOM % 20000))
swtpm_start()
{
	mkdir -p "$1"
	swtpm socket --tpm2 --tpmstate dir="$1" --server type=tcp,port=$port \
		--ctrl type=tcp,port=$((port + 1)) --flags not-need-init,startup-clear \
		--pid file="$IMG_TMP/swtpm.pid" --daemon
}
swtpm_stop()
{
	[ -s "$IMG_TMP/swtpm.pid" ] && kill "$(cat "$IMG_TMP/swtpm.pid")" 2>/dev/null || true
	sleep 0.3
}
at_exit swtpm_stop
swtpm_start "$IMG_TMP/tpm-a"
export FDEWIZ_TEST_TPM_TCTI="swtpm:host=127.0.0.1,port=$port"
mkdir -p "$IMG_TMP/sys/tpm0" "$IMG_TMP/nosys"
echo 2 >"$IMG_TMP/sys/tpm0/tpm_version_major"
export FDEWIZ_TEST_TPM_SYSFS=$IMG_TMP/sys

# The image: partition 1 a LUKS2 volume (made by cryptsetup: the subject here is the
# volume's keys, not the conversion), partition 2 plain ext4 (78 MiB: large enough to be
# encrypted, so that what refuses "encrypt --tpm" there is the missing system).
img_new "$img" 120
img_gpt "$img"
img_part "$img" vol 1 41
img_part "$img" plain 41 119
dev=$(img_loop "$img" 1)
cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
	--key-file "$key" "$dev"
head -c $((20 << 20)) /dev/urandom | dd of="$dev" bs=1M seek=16 conv=notrunc status=none
img_unloop "$dev"
dev2=$(img_loop "$img" 2)
mkfs.ext4 -q "$dev2"
img_unloop "$dev2"

# header_sum, data_sum: the LUKS2 header area (16 MiB) and everything after it.
header_sum() { dd if="$img" bs=1M skip=1 count=16 status=none | sha256sum; }
data_sum() { dd if="$img" bs=1M skip=17 count=24 status=none | sha256sum; }
part2_sum()
{
	dd if="$img" iflag=skip_bytes,count_bytes bs=1M skip="$(img_part_offset "$img" 2)" \
		count="$(img_part_size "$img" 2)" status=none | sha256sum
}
# dump: the keyslots and tokens, as cryptsetup shows them.
dump()
{
	local d
	d=$(img_loop "$img" 1)
	cryptsetup luksDump "$d" | sed -n '/^Keyslots:/,/^Digests:/p' | grep -E '^[A-Z]|^  [0-9]+:|Keyslot:'
	img_unloop "$d"
}
# opens FILE: does the key in FILE open partition 1?
opens()
{
	local d rc=0
	d=$(img_loop "$img" 1)
	cryptsetup open --test-passphrase --key-file "$1" "$d" || rc=$?
	img_unloop "$d"
	return $rc
}
data0=$(data_sum)

step_begin "refusals: nothing changed"
h0=$(header_sum)
FDEWIZ_TEST_TPM_SYSFS=$IMG_TMP/nosys fdw tpm enrol --key-file "$key" "$img:1"
assert_eq "$STEP: no TPM: exit status" 1 "$RUN_RC"
assert_contains "$STEP: no TPM: says so" "$(cat "$res.err")" "has no TPM"
assert_contains "$STEP: no TPM: nothing changed" "$(cat "$res.err")" "Nothing was changed"
printf 'not the passphrase' >"$IMG_TMP/wrong"
fdw tpm enrol --key-file "$IMG_TMP/wrong" "$img:1"
assert_eq "$STEP: wrong passphrase: exit status" 1 "$RUN_RC"
assert_contains "$STEP: wrong passphrase: says so" "$(cat "$res.err")" \
	"that passphrase does not open"
fdw tpm enrol --key-file "$key" --pcrs '7;reboot' "$img:1"
assert_eq "$STEP: a PCR list that is not one: exit status" 1 "$RUN_RC"
assert_contains "$STEP: a PCR list that is not one: says so" "$(cat "$res.err")" \
	"is not a list of PCR numbers"
fdw tpm enrol --key-file "$key" "$img:2"
assert_eq "$STEP: not LUKS2: exit status" 1 "$RUN_RC"
assert_contains "$STEP: not LUKS2: says so" "$(cat "$res.err")" "is not a LUKS2 volume"
p2=$(part2_sum)
fdw encrypt --tpm --yes --fast-pbkdf --no-bench --key-file "$key" "$img:2"
assert_eq "$STEP: encrypt --tpm, no installed system: exit status" 1 "$RUN_RC"
assert_contains "$STEP: encrypt --tpm, no installed system: says so" "$(cat "$res.err")" \
	"is for an installed system's root"
fdw encrypt --tpm --at-restart --yes --key-file "$key" /
assert_eq "$STEP: encrypt --tpm --at-restart: exit status" 2 "$RUN_RC"
assert_contains "$STEP: encrypt --tpm --at-restart: says so" "$(cat "$res.err")" \
	"does not go with --at-restart yet"
assert_eq "$STEP: partition 2 unchanged (sha256)" "$p2" "$(part2_sum)"
assert_eq "$STEP: the header is unchanged (sha256)" "$h0" "$(header_sum)"
fdw tpm status "$img:1"
assert_eq "$STEP: status: exit status" 0 "$RUN_RC"
assert_contains "$STEP: status: the TPM" "$(cat "$res.out")" "TPM: tpm0, version 2"
assert_contains "$STEP: status: no binding" "$(cat "$res.out")" "no TPM binding"
step_end

step_begin "enrol: a keyslot sealed to the TPM, checked, the passphrase kept"
echo "    before:"
dump | sed 's/^/      /'
before_slots=$(dump | grep -c '^  [0-9]*: luks2' || true)
fdw tpm enrol --key-file "$key" "$img:1"
assert_eq "$STEP: exit status" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
assert_contains "$STEP: says the slot and the check" "$(cat "$res.out")" \
	"it was unsealed and opens the volume"
assert_contains "$STEP: not this system's crypttab: no initramfs touched" "$(cat "$res.out")" \
	"no initramfs was changed"
echo "    after:"
dump | sed 's/^/      /'
assert_eq "$STEP: one keyslot more" $((before_slots + 1)) "$(dump | grep -c '^  [0-9]*: luks2')"
assert_eq "$STEP: a clevis token" 1 "$(dump | grep -c '^  [0-9]*: clevis')"
d=$(img_loop "$img" 1)
TPM2TOOLS_TCTI=$FDEWIZ_TEST_TPM_TCTI clevis luks pass -d "$d" -s 1 >"$IMG_TMP/unsealed" 2>/dev/null || true
img_unloop "$d"
assert_true "$STEP: what the TPM unseals opens the volume" opens "$IMG_TMP/unsealed"
assert_true "$STEP: the passphrase still opens it" opens "$key"
fdw tpm status "$img:1"
assert_contains "$STEP: status: sealed to PCR 7, unseals" "$(cat "$res.out")" \
	"keyslot 1 sealed to PCR 7 (sha256): the TPM unseals it now"
fdw recovery-key add --fast-pbkdf --key-file "$key" "$img:1"
assert_eq "$STEP: a recovery key added beside it" 0 "$RUN_RC"
grep -o '[A-Z0-9]\{6\}\(-[A-Z0-9]\{6\}\)\{7\}' "$res.out" | head -n1 | tr -d '\n' >"$IMG_TMP/rk"
fdw tpm enrol --key-file "$key" "$img:1"
assert_eq "$STEP: enrol again: exit status" 0 "$RUN_RC"
assert_eq "$STEP: enrol again: still one binding" 1 "$(dump | grep -c '^  [0-9]*: clevis')"
fdw tpm status "$img:1"
assert_eq "$STEP: enrol again: in a new keyslot, unsealed" 1 \
	"$(grep -c 'keyslot [0-9]* sealed to PCR 7 (sha256): the TPM unseals it now' "$res.out")"
assert_not_contains "$STEP: enrol again: the old keyslot 1 is gone" "$(cat "$res.out")" \
	"keyslot 1 sealed"
step_end

step_begin "another TPM (a fresh state): it refuses, the passphrase and recovery key open"
swtpm_stop
swtpm_start "$IMG_TMP/tpm-b"
fdw tpm status "$img:1"
assert_contains "$STEP: status says the TPM refuses it" "$(cat "$res.out")" \
	"the TPM refuses it now"
echo "    $(grep keyslot "$res.out")"
assert_true "$STEP: the passphrase opens it" opens "$key"
fdw recovery-key test --key-file "$IMG_TMP/rk" "$img:1"
assert_eq "$STEP: the recovery key opens it" 0 "$RUN_RC"
fdw tpm enrol --key-file "$key" "$img:1"
assert_eq "$STEP: enrol seals it to this TPM" 0 "$RUN_RC"
fdw tpm status "$img:1"
assert_contains "$STEP: and it unseals" "$(cat "$res.out")" "the TPM unseals it now"
step_end

step_begin "remove: the binding goes, the passphrase and the recovery key stay"
fdw tpm remove "$img:1"
assert_eq "$STEP: exit status" 0 "$RUN_RC"
assert_contains "$STEP: says so" "$(cat "$res.out")" "1 TPM binding(s) removed"
echo "    after remove:"
dump | sed 's/^/      /'
assert_eq "$STEP: no clevis token" 0 "$(dump | grep -c '^  [0-9]*: clevis' || true)"
assert_eq "$STEP: the passphrase and recovery keyslots" 2 "$(dump | grep -c '^  [0-9]*: luks2')"
assert_true "$STEP: the passphrase opens it" opens "$key"
fdw recovery-key test --key-file "$IMG_TMP/rk" "$img:1"
assert_eq "$STEP: the recovery key opens it" 0 "$RUN_RC"
fdw tpm remove "$img:1"
assert_eq "$STEP: again: exit status" 0 "$RUN_RC"
assert_contains "$STEP: again: nothing to remove" "$(cat "$res.out")" "has no TPM binding"
assert_eq "$STEP: the data area never changed (sha256)" "$data0" "$(data_sum)"
step_end

assert_finish
