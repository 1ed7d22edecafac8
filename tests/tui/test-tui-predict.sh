#!/bin/bash
# The prediction and the cipher choice in the wizard, on a real disk image: the plan screen
# measures the partition (reading only: the image's sha256 does not change) and the
# ciphers, shows the expected speed per line and what it means, and the cipher list with
# the recommendation marked. Another cipher is chosen (Adiantum, or AES-XTS 256 where
# Adiantum is the recommendation); the prediction follows it, the conversion really uses
# it (cryptsetup luksDump), the results screen shows the prediction beside what was
# measured, and the data verifies (cryptsetup decrypts; e2fsck; sha256 of every file).
#
# The plan and both results screens are also shown in Russian and Japanese: the words in
# that language, the same figures (the prediction, predicted beside measured).
#
# FDEWIZ_TUI_CAPTURES=DIR saves the plan and results screens there (for the manual).
. "$(dirname "$0")/../lib/start.sh" tmux jobs locale
require_cmds tmux jq parted losetup mkfs.ext4 mkfs.vfat cryptsetup e2fsck sha256sum blkid \
	msgfmt unshare
for loc in ru_RU ja_JP; do
	locale -a 2>/dev/null | grep -qix "$loc.utf-\{0,1\}8" ||
		{ echo "FAIL: the $loc.UTF-8 locale is not generated (tests/install-deps.sh test)"; exit 1; }
done

tmux_test_init predict predict.img 2
pass="correct horse battery staple"
key=$IMG_TMP/key
res=$IMG_TMP/res
printf '%s' "$pass" >"$key"
img_new "$img" 600
img_gpt "$img"
img_part "$img" EFI 1 33
img_flag "$img" 1 esp
img_mkfs "$img" 1 vfat EFI
img_part "$img" Data 33 599
img_mkfs "$img" 2 ext4 Data
img_fill "$img" 2 60

save()
{
	[ -z "${FDEWIZ_TUI_CAPTURES:-}" ] || tmux_capture "$srv" >"$FDEWIZ_TUI_CAPTURES/$1.txt"
}

# In Russian and Japanese: the catalogues of the source tree, and words of each.
run=$(locale_runner) || { echo "FAIL: cannot run fdewiz with the test catalogues"; exit 1; }
# words LANG: that language's words (fixed strings: make check may run in the C locale);
# sets title, columns, key_re and test_name.
words()
{
	case $1 in
	ru*) title="План для" columns="замерено" key_re='ключ ?[0-9]+ ?бит'
	     test_name="SEQ1M Q1T1 чтение" ;;
	ja*) title="の計画" columns="測定値" key_re='[0-9]+ ?ビット鍵'
	     test_name="SEQ1M Q1T1 読み取り" ;;
	esac
}
# start_in LANG: the wizard on the image in that language.
start_in()
{
	tmux_stop "$srv"
	tmux_start "$srv" 100 30 env -u LANGUAGE -u LC_ALL -u LC_MESSAGES LANG="$1" \
		FDEWIZ_STATE_DIR="$state" FDEWIZ_TEST_FAST_PBKDF=1 FDEWIZ_TEST_BENCH_SCALE=tiny \
		"$run" "$FDEWIZ" "$img"
}
# wait_re REGEX SECONDS: like tmux_wait_for, for a pattern (the words are translated).
wait_re()
{
	local tries=$(($2 * 10))

	while [ "$tries" -gt 0 ]; do
		tmux_capture "$srv" -J | grep -qE -- "$1" && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	tmux_capture "$srv" | sed 's/^/    | /' >&2
	assert_fail "/$1/ did not appear within $2 s"
	return 1
}

# 0. The plan in each language, before anything is converted: the prediction's figures
#    and the cipher list, then q changes nothing.
sum_start=$(sha256sum <"$img")
for loc in ru_RU.UTF-8 ja_JP.UTF-8; do
	words "$loc"
	start_in "$loc"
	wait_re 'Data' 20
	tmux_send "$srv" Down Enter
	wait_re 'SEQ1M Q8T1 .*[0-9]+ -> [0-9]+' 120 || continue
	wait_re 'Adiantum' 10 || continue
	s=$(tmux_capture "$srv" -J)
	save "predict-plan-${loc%%_*}"
	assert_contains "$loc plan: its title in that language" "$s" "$title"
	assert_true "$loc plan: the prediction" grep -qE 'SEQ1M Q8T1 .*[0-9]+ -> [0-9]+' <<<"$s"
	assert_contains "$loc plan: the cipher list" "$s" "Adiantum (XChaCha12"
	tmux_send "$srv" q
	tmux_wait_exit "$srv" 20
done
tmux_stop "$srv"
assert_eq "plans in two languages, then q: the image unchanged" "$sum_start" "$(sha256sum <"$img")"

# The cipher row marked chosen: "(*) TITLE".
chosen() { tmux_capture "$srv" | grep -oE '\(\*\) [A-Za-z][^ ]*( [^ ]+)*, [0-9]+-bit key' |
	head -1 | sed 's/^(\*) //'; }

sum_before=$(sha256sum <"$img")
tmux_start "$srv" 100 30 env FDEWIZ_STATE_DIR="$state" FDEWIZ_TEST_FAST_PBKDF=1 \
	FDEWIZ_TEST_BENCH_SCALE=tiny "$FDEWIZ" "$img"
tmux_wait_for "$srv" "Choose a partition" 20
tmux_send "$srv" Down
tmux_send "$srv" Enter

# 1. The plan: measuring at once, the screen alive meanwhile, then the figures.
tmux_wait_for "$srv" "Plan for $img:2" 30
s=$(tmux_capture "$srv")
if grep -qF "measuring this partition" <<<"$s"; then
	assert_pass "plan: says it is measuring"
	# The screen answers while it measures: the focus moves to the cipher list.
	tmux_send "$srv" Tab Tab
	tmux_wait_for "$srv" "Up/Down: cipher" 10
	tmux_send "$srv" BTab BTab
else
	assert_contains "plan: measured already (a fast machine)" "$s" "Expected"
fi
tmux_wait_for "$srv" "CPU: about" 120
s=$(tmux_capture "$srv" -J)
save predict-1-plan
assert_contains "plan: the measurement changed nothing" "$(sha256sum <"$img")" "$sum_before"
for line in "SEQ1M Q8T1 read" "SEQ1M Q1T1 read" "RND4K Q32T1 read" "RND4K Q1T1 read"; do
	assert_true "plan: prediction line $line" grep -qE "$line +[0-9]+ -> [0-9]+ (MB/s|IOPS)" \
		<<<"$s"
done
# The plan measures reading only: each write says so, never the read figure again.
assert_eq "plan: writes not measured, on each of the four lines" 4 \
	"$(grep -cE 'read +[0-9]+ -> [0-9]+ (MB/s|IOPS).*write: not measured' <<<"$s" || true)"
assert_true "plan: no write figure" eval '! grep -qE "write [0-9]+ (MB/s|IOPS)" <<<"$s"'
assert_contains "plan: the CPU line says why" "$s" "writes are not measured before the"
assert_true "plan: the sentence" grep -qE \
	'Reading large files(: about [0-9]+ % slower here| and small-file| barely)' <<<"$s"
for c in "AES-XTS, 256-bit key" "AES-XTS, 512-bit key" "Adiantum (XChaCha12, AES), 256-bit key" \
	"Serpent-XTS, 512-bit key"; do
	assert_contains "plan: cipher row $c" "$s" "$c"
done
# Every row has its speed here or says in words why not.
rows=$(grep -cE '\((\*| )\) .*-bit key +([0-9]+ MiB/s|not measured: )' <<<"$s" || true)
assert_eq "plan: four cipher rows with a speed or a reason" 4 "$rows"
assert_true "plan: the recommendation marked on the chosen row" \
	grep -qE '\(\*\) .*-bit key +.*recommended' <<<"$s"
assert_true "plan: its reason" grep -qE 'instructions|Measured on this machine' <<<"$s"
first=$(chosen)
sentence1=$(grep -oE 'Reading large files.*' <<<"$s" | head -1)

# 2. Another cipher, chosen in the list: Adiantum where this kernel has it (its row has a
#    speed), else AES-XTS with the other key size. Rows: AES-256, AES-512, Adiantum, Serpent.
titles=("AES-XTS, 256-bit key" "AES-XTS, 512-bit key" "Adiantum (XChaCha12, AES), 256-bit key"
	"Serpent-XTS, 512-bit key")
specs=(aes-xts-plain64 aes-xts-plain64 xchacha12,aes-adiantum-plain64 serpent-xts-plain64)
for i in 0 1 2 3; do [ "${titles[i]}" != "$first" ] || cur=$i; done
adiantum_here=
grep -qE 'Adiantum \(XChaCha12, AES\), 256-bit key +[0-9]+ MiB/s' <<<"$s" && adiantum_here=1
if [ -n "$adiantum_here" ] && [ "$cur" != 2 ]; then
	target=2
elif [ "$cur" = 0 ]; then
	target=1
else
	target=0
fi
want=${titles[target]} spec=${specs[target]} bits=$([ "$target" = 1 ] && echo 512 || echo 256)
tmux_send "$srv" Tab Tab
tmux_wait_for "$srv" "Up/Down: cipher" 10
if [ -z "$adiantum_here" ]; then
	# A cipher this kernel does not offer is refused, in words, and nothing changes.
	assert_true "plan: Adiantum says why it has no speed" grep -qE \
		'Adiantum \(XChaCha12, AES\), 256-bit key +not measured: not in this kernel' <<<"$s"
	for _ in 1 2 3; do tmux_send "$srv" Down; done
	tmux_wait_for "$srv" "cannot be chosen: this kernel does not offer it" 10
	assert_eq "plan: the refused row is not chosen" "$first" "$(chosen)"
	for _ in 1 2 3; do tmux_send "$srv" Up; done
	cur=0
fi
while [ "$cur" -lt "$target" ]; do tmux_send "$srv" Down; cur=$((cur + 1)); done
while [ "$cur" -gt "$target" ]; do tmux_send "$srv" Up; cur=$((cur - 1)); done
tmux_wait_for "$srv" "(*) $want" 10
s=$(tmux_capture "$srv" -J)
save predict-2-plan-chosen
assert_not_contains "plan: the recommendation is not the chosen row now" \
	"$(grep -F "(*)" <<<"$s")" "recommended"
assert_true "plan: still a prediction for the chosen cipher" \
	grep -qE 'SEQ1M Q1T1 read +[0-9]+ -> [0-9]+ MB/s' <<<"$s"
sentence2=$(grep -oE 'Reading large files.*' <<<"$s" | head -1)
echo "prediction with $first: $sentence1"
echo "prediction with $want: $sentence2"
tmux_send "$srv" Enter

# 3. Passphrase and the typed confirmation name the chosen cipher.
tmux_passphrase_twice "$srv" "$pass"
assert_contains "confirm: the chosen cipher" "$(tmux_capture "$srv" -J)" \
	"cipher $spec with a $bits-bit key"
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter

# 4. The results: predicted beside measured (the after-run needs device-mapper).
tmux_wait_for "$srv" "Results for $img:2" 900
s=$(tmux_capture "$srv")
save predict-3-results
job_file=$(ls "$state"/jobs/*.json)
pred=$(jq -r .bench_predicted "$job_file")
assert_true "job record: the prediction is kept" test -s "$pred"
case $target in
0) want_test=aes-xts-256 ;;
1) want_test=aes-xts-512 ;;
*) want_test=adiantum ;;
esac
assert_eq "prediction file: its cipher" "$want_test" "$(jq -r '.cipher' "$pred")"
assert_eq "prediction file: the four read lines, no write line (writes not measured)" \
	"io.randread.qd1 io.randread.qd32 io.seqread.qd1 io.seqread.qd8" \
	"$(jq -r '[.tests[].id] | sort | join(" ")' "$pred")"
if [ -e /dev/mapper/control ] && grep -qw device-mapper /proc/misc; then
	assert_true "results: measured and predicted columns" grep -qE 'measured +predicted$' \
		<<<"$s"
else
	assert_contains "results: only the baseline (no device-mapper here)" "$s" \
		"Only the baseline (before encryption) was measured"
	assert_true "results: the prediction beside the baseline" \
		grep -qE 'SEQ1M Q8T1 read +[0-9.]+ MB/s +predicted [0-9.]+ MB/s, [0-9]+% slower' <<<"$s"
	# Which column is which: the plain figure is not taken for the encrypted one.
	assert_true "results: the columns say plain, measured and encrypted, predicted" \
		grep -qE '^ +plain, measured +encrypted, predicted *$' <<<"$s"
	# Only rows with a figure: the cipher recommendation has none.
	assert_true "results: no row without a figure (recommended: ... -)" \
		eval '! grep -qE "recommended: |^  [A-Za-z].* -$" <<<"$s"'
fi
tmux_send "$srv" q
tmux_wait_exit "$srv" 20
assert_eq "results: exit status" 0 "$(tmux_exit_status "$srv")"

# 4a. A baseline that differs from the plan's probe (the disk at half the speed it had
#     then): each prediction beside it is the baseline times the line's predicted ratio,
#     its percentage is that ratio's, and one line says that the two disagreed. Checked
#     row by row against the prediction file. Only where no after-run exists (the
#     baseline-only screen); 4b shows the columns beside the encrypted figures.
before_json=$(jq -r .bench_before "$job_file")
if [ "$(jq -r .bench_after "$job_file")" = "" ]; then
	jq '.tests[].metrics[] |= (if .key == "mbps" or .key == "iops"
		then .samples |= map(. * 0.5) else . end)' "$before_json" >"$before_json.new"
	mv "$before_json.new" "$before_json"
	tmux_stop "$srv"
	tmux_start "$srv" 110 30 env FDEWIZ_STATE_DIR="$state" "$FDEWIZ" "$img"
	tmux_wait_for "$srv" "Choose a partition" 20
	tmux_send "$srv" Down Down Enter
	tmux_wait_for "$srv" "Results for $img:2" 20
	tmux_wait_for "$srv" "predicted" 10
	s=$(tmux_capture "$srv" -J)
	save predict-3b-results-baseline-differs
	assert_contains "results: the probe's disagreement with the baseline is said" "$s" \
		"The plan's quick look saw this disk"
	rows=$(python3 - "$pred" "$before_json" <<'PY' 3<<<"$s"
import json, re, sys
pred = {t["id"]: t for t in json.load(open(sys.argv[1]))["tests"]}
base = json.load(open(sys.argv[2]))["tests"]
screen = open(3).read().splitlines()
def med(t, key):
    for m in t["metrics"]:
        if m["key"] == key and m["samples"]:
            s = sorted(m["samples"]); n = len(s)
            return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return None
checked = bad = 0
for t in base:
    if t["id"] not in pred or not t.get("primary"):
        continue
    key = t["primary"]
    b, pe, pp = med(t, key), med(pred[t["id"]], key), med(pred[t["id"]], "plain_" + key)
    if not (b and pe and pp):
        continue
    ratio = pe / pp
    want, want_pct = b * ratio, max(0, (1 - ratio) * 100)
    row = [l for l in screen if l.strip().startswith(t["title"])]
    m = re.search(r"predicted ([0-9.]+) \S+, ([0-9]+)% slower", row[0]) if row else None
    ok = m and abs(float(m.group(1)) - want) <= max(0.6, want * 0.001) and \
        abs(int(m.group(2)) - want_pct) <= 0.51
    checked += 1
    bad += not ok
    print(("ok " if ok else "BAD ") + t["title"] + ": want %.1f, %.0f%%; row %r" %
          (want, want_pct, row[0] if row else None))
print("rows checked %d, wrong %d" % (checked, bad))
PY
)
	printf '%s\n' "$rows"
	assert_true "results: four rows checked against baseline x ratio" \
		grep -q '^rows checked 4, wrong 0$' <<<"$rows"
	tmux_send "$srv" q
	tmux_wait_exit "$srv" 20
fi

# 4b. Opened again later, from the disks list, with an after-run (derived from the saved
#     baseline where this machine cannot run it, as test-tui-flow does): the prediction
#     kept with the job is set beside each encrypted figure.
if [ "$(jq -r .bench_after "$job_file")" = "" ]; then
	after_json=$state/bench/after-derived.json
	jq '.label = "after" | .tests[].metrics[] |= (if .higher_is_better
		then .samples |= map(. * 0.8) else .samples |= map(. * 1.25) end)' \
		"$before_json" >"$after_json"
	jq --arg a "$after_json" '.bench_after = $a | .bench_note = ""' "$job_file" \
		>"$job_file.new"
	mv "$job_file.new" "$job_file"
fi
tmux_stop "$srv"
tmux_start "$srv" 100 30 env FDEWIZ_STATE_DIR="$state" "$FDEWIZ" "$img"
tmux_wait_for "$srv" "Choose a partition" 20
tmux_send "$srv" Down Down Enter
tmux_wait_for "$srv" "Results for $img:2" 20
s=$(tmux_capture "$srv")
save predict-4-results-later
assert_true "results later: measured and predicted columns" grep -qE 'measured +predicted$' \
	<<<"$s"
assert_true "results later: a prediction beside an encrypted figure" \
	grep -qE 'encrypted .* [0-9.]+ (MB/s|IOPS) +[0-9.]+ (MB/s|IOPS)$' <<<"$s"
assert_contains "results later: how far the prediction was" "$s" \
	"Predicted before the conversion: within"
tmux_send "$srv" q
tmux_wait_exit "$srv" 20

# 4c. The same results in Russian and Japanese: the same figures, the words translated.
for loc in ru_RU.UTF-8 ja_JP.UTF-8; do
	words "$loc"
	start_in "$loc"
	wait_re 'Data' 20
	tmux_send "$srv" Down Down Enter
	wait_re 'SEQ1M Q1T1' 20 || continue
	wait_re '[0-9]+[.,][0-9]%' 10 || continue	# "97,5%" in Russian
	s=$(tmux_capture "$srv")
	save "predict-results-${loc%%_*}"
	assert_contains "$loc results: the columns in that language" "$s" "$columns"
	assert_contains "$loc results: the test names in that language" "$s" "$test_name"
	# The sentence may wrap (the image's path is long): its lines joined, indent dropped.
	assert_true "$loc results: the recorded cipher's key size in that language" \
		grep -qE "$key_re" <<<"$(head -5 <<<"$s" | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n *//g')"
	assert_true "$loc results: predicted beside measured (two figures on a row)" \
		grep -qE '[0-9.,]+ [^ ]+ +[0-9.,]+ [^ ]+$' <<<"$s"
	assert_true "$loc results: a test with a percent" grep -qE '[0-9]+[.,][0-9]%' <<<"$s"
	echo "results in $loc:"
	printf '%s\n' "$s"
	tmux_send "$srv" q
	tmux_wait_exit "$srv" 20
done
tmux_stop "$srv"

# 5. What was written: the chosen cipher, and the data, checked with other tools.
loop=$(img_loop "$img" 2)
dump=$(cryptsetup luksDump "$loop")
img_unloop "$loop"
assert_true "luksDump: cipher $spec" grep -qE "cipher: +$spec\$" <<<"$dump"
assert_true "luksDump: $bits-bit key" grep -qE "Cipher key: +$bits bits" <<<"$dump"
STEP="decrypt"
verify_decrypt "$img" 2
assert_finish
