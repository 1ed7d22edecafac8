#!/bin/bash
# The wizard, `list` and `encrypt --dry-run` under Russian and Japanese: translated screens,
# help and tables, columns that line up with double-width text, no character cut at the
# right edge, a resize, the translated confirmation word (a wrong word changes nothing; the
# right one, typed in Japanese, encrypts), then cryptsetup decrypts and the data is verified.
#
# The catalogues are compiled here from the source tree's po/*.po. The program looks for
# them in its LOCALEDIR; unless it reads FDEWIZ_LOCALEDIR, they are put there inside a
# private mount namespace (an overlay over the nearest existing parent directory), so
# the system itself never changes.
#
# FDEWIZ_TUI_CAPTURES=DIR saves text captures (ru-*.txt, ja-*.txt) there.
. "$(dirname "$0")/../lib/start.sh" jobs tmux locale
require_cmds tmux msgfmt localedef unshare mount python3 jq parted losetup mkfs.ext4 mkfs.vfat \
	cryptsetup e2fsck blkid sha256sum
srv=fdewiz-test-loc-$$
img_test_init

# The two locales: the system's when generated (tests/install-deps.sh test makes them),
# else both built here into a private folder (LOCPATH hides the system's, so both go
# there) from the locales package's sources. Never a skip: without them this test would
# prove nothing.
missing=
for loc in ru_RU ja_JP; do
	locale -a 2>/dev/null | grep -qix "$loc.utf-\{0,1\}8" || missing+=" $loc"
done
if [ -n "$missing" ]; then
	for loc in ru_RU ja_JP; do
		if [ ! -e "/usr/share/i18n/locales/$loc" ]; then
			echo "FAIL:$missing not generated, and the source /usr/share/i18n/locales/$loc" \
				"is missing (apt-get install locales, or tests/install-deps.sh test)"
			exit 1
		fi
		mkdir -p "$IMG_TMP/locales"
		# Exit 1 is warnings only (the locale is written); the file decides.
		localedef -c -i "$loc" -f UTF-8 "$IMG_TMP/locales/$loc.UTF-8" || true
		[ -s "$IMG_TMP/locales/$loc.UTF-8/LC_CTYPE" ] ||
			{ echo "FAIL: localedef could not build $loc.UTF-8"; exit 1; }
	done
	# Everything started from here looks only there (and at C.utf8): enough for this test.
	export LOCPATH=$IMG_TMP/locales
	echo "$missing not generated on this system: built in $LOCPATH"
fi
img_worker_stop_at_exit "$IMG_TMP/state" "$IMG_TMP/loc.img" 2
tmux_own "$srv"

img=$IMG_TMP/loc.img
state=$IMG_TMP/state
pass="correct horse battery staple"
img_new "$img" 300
img_gpt "$img"
img_part "$img" EFI 1 33
img_flag "$img" 1 esp
img_mkfs "$img" 1 vfat BOOTFS
img_part "$img" Data 33 299
img_mkfs "$img" 2 ext4 files
img_fill "$img" 2 40

# The catalogues of the source tree, compiled; $run CMD... runs CMD where they are found.
run=$(locale_runner) || { echo "FAIL: cannot run fdewiz with the test catalogues"; exit 1; }

# columns.py FILE: for each "LINE_PATTERN<TAB>TOKEN_REGEX" on stdin, the display column
# (east asian wide = 2) where TOKEN_REGEX (or its group 1) matches on the first line that
# matches LINE_PATTERN; -1 if absent.
cat >"$IMG_TMP/columns.py" <<'EOF'
import re, sys, unicodedata

def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)

lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
for q in sys.stdin.read().splitlines():
    pat, tok = q.split("\t")
    col = -1
    for ln in lines:
        if re.search(pat, ln):
            m = re.search(tok, ln)
            if m:
                col = width(ln[:m.start(1 if m.groups() else 0)])
            break
    print(col)
EOF
# widest.py FILE: the display width of the widest line.
cat >"$IMG_TMP/widest.py" <<'EOF'
import sys, unicodedata
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
print(max(sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in l) for l in lines))
EOF

# columns FILE: reads "LINE_PATTERN<TAB>TOKEN_REGEX" lines, prints the columns in one line.
columns()
{
	python3 "$IMG_TMP/columns.py" "$1" | tr '\n' ' ' | sed 's/ $//'
}

# assert_all_same WHAT "C1 C2 ...": at least two columns, every one found (not -1), all equal.
assert_all_same()
{
	local what=$1 cols=$2 first c ok=1

	first=${cols%% *}
	[ "$(wc -w <<<"$cols")" -ge 2 ] || ok=0
	for c in $cols; do
		[ "$c" != -1 ] && [ "$c" = "$first" ] || ok=0
	done
	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	if [ "$ok" = 1 ]; then
		assert_pass "$what: all at column $first"
	else
		assert_fail "$what: columns differ or are missing: $cols"
	fi
}

cap=$IMG_TMP/cap.txt
save()
{
	tmux_capture "$srv" >"$cap"
	[ -z "${FDEWIZ_TUI_CAPTURES:-}" ] || cp "$cap" "$FDEWIZ_TUI_CAPTURES/$1.txt"
}

# fits WHAT COLS: no captured line is wider than the terminal (a cut double-width
# character, or one pushed to the next line, would show up here or in the checks).
assert_fits()
{
	local w

	w=$(python3 "$IMG_TMP/widest.py" "$cap")
	assert_true "$1: widest line $w <= $2 columns" test "$w" -le "$2"
	assert_not_contains "$1: no replacement characters" "$(cat "$cap")" $'\uFFFD'
}

# wait_gone TEXT TIMEOUT_S: poll until TEXT is no longer on the screen (after a resize).
wait_gone()
{
	local tries=$(($2 * 10))

	while [ "$tries" -gt 0 ]; do
		tmux_capture "$srv" -J | grep -qF -- "$1" || return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	echo "wait_gone: '$1' is still on the screen after $2 s" >&2
	return 1
}

# start LANG COLS ROWS: the wizard on the image, in a terminal of that size.
start()
{
	tmux_stop "$srv"
	LANG=$1 tmux_start "$srv" "$2" "$3" env -u LANGUAGE -u LC_ALL -u LC_MESSAGES \
		FDEWIZ_STATE_DIR="$state" FDEWIZ_TEST_FAST_PBKDF=1 "$run" "$FDEWIZ" "$img"
}

before_sum=$(sha256sum "$img" | cut -d' ' -f1)

# 1. The command line: Russian and Japanese tables, the columns in place.
out=$("$run" env -u LANGUAGE -u LC_ALL LANG=ru_RU.UTF-8 "$FDEWIZ" list "$img")
printf '%s\n' "$out" >"$cap"
[ -z "${FDEWIZ_TUI_CAPTURES:-}" ] || cp "$cap" "$FDEWIZ_TUI_CAPTURES/ru-list.txt"
assert_contains "ru list: header" "$out" "ИМЯ"
assert_contains "ru list: image file" "$out" "файл образа"
assert_contains "ru list: verdict" "$out" "Можно зашифровать на месте"
assert_contains "ru list: EFI refused" "$out" "Системный раздел EFI"
assert_contains "ru list: eligible" "$out" "да (shrink)"
cols=$(printf '%s\t%s\n' 'ИМЯ' 'РАЗМЕР' ' EFI ' '[0-9.]+ MiB' ' Data ' '[0-9.]+ MiB' |
       columns "$cap")
assert_all_same "ru list: size column" "$cols"

out=$("$run" env -u LANGUAGE -u LC_ALL LANG=ja_JP.UTF-8 "$FDEWIZ" list "$img")
printf '%s\n' "$out" >"$cap"
[ -z "${FDEWIZ_TUI_CAPTURES:-}" ] || cp "$cap" "$FDEWIZ_TUI_CAPTURES/ja-list.txt"
assert_contains "ja list: header" "$out" "名前"
assert_contains "ja list: verdict" "$out" "その場で暗号化できます"
assert_contains "ja list: eligible" "$out" "可 (shrink)"
for c in 'サイズ	[0-9.]+ MiB' 'FS種別	vfat|ext4' 'ラベル	BOOTFS|files' 'その場で暗号化	可|不可'; do
	h=${c%%	*} v=${c#*	}
	cols=$(printf '%s\t%s\n' '名前' "$h" ' EFI ' "$v" ' Data ' "$v" | columns "$cap")
	assert_all_same "ja list: column $h" "$cols"
done
out=$("$run" env -u LANGUAGE -u LC_ALL LANG=ru_RU.UTF-8 "$FDEWIZ" list /nonexistent 2>&1 ||
      true)
assert_contains "ru list error: nothing changed" "$out" "Ничего не изменено."

# The plan of `encrypt --dry-run`: translated, its values in one column, nothing changed.
for l in ru_RU ja_JP; do
	out=$("$run" env -u LANGUAGE -u LC_ALL LANG=$l.UTF-8 FDEWIZ_STATE_DIR="$state" \
		"$FDEWIZ" encrypt --dry-run "$img:2")
	printf '%s\n' "$out" >"$cap"
	[ -z "${FDEWIZ_TUI_CAPTURES:-}" ] || cp "$cap" "$FDEWIZ_TUI_CAPTURES/${l%_*}-dry-run.txt"
	case $l in
	ru_RU) assert_contains "ru dry run: nothing changed" "$out" \
		"Пробный запуск: ничего не изменено." ;;
	ja_JP) assert_contains "ja dry run: nothing changed" "$out" "ドライラン: 何も変更していません。" ;;
	esac
	# Each "  label:   value" line: the column where the value starts.
	cols=$(python3 - "$cap" <<'EOF'
import re, sys, unicodedata
for ln in open(sys.argv[1], encoding="utf-8").read().split("\n"):
    m = re.match(r"  [^ ].*?: +", ln)
    if m:
        print(sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in m.group(0)))
EOF
	)
	cols=$(tr '\n' ' ' <<<"$cols" | sed 's/ $//')
	assert_all_same "${l%_*} dry run: plan values in one column" "$cols"
done
assert_eq "dry runs: the image is unchanged" "$before_sum" "$(sha256sum "$img" | cut -d' ' -f1)"

# 2. The wizard in Russian: disks, help, plan; a wrong confirmation word changes nothing.
start ru_RU.UTF-8 100 30
tmux_wait_for "$srv" "Выберите раздел для шифрования на месте" 20
save ru-1-disks
s=$(cat "$cap")
assert_contains "ru disks: column header" "$s" "ДИСК / РАЗДЕЛ"
assert_contains "ru disks: eligible" "$s" "да (shrink)"
assert_contains "ru disks: EFI refused" "$s" "нет (efi-system)"
assert_contains "ru disks: reason" "$s" "Можно зашифровать на месте"
assert_contains "ru disks: keys" "$s" "r: обновить"
assert_fits "ru disks" 100
cols=$(printf '%s\t%s\n' 'ДИСК / РАЗДЕЛ' 'РАЗМЕР' ' EFI' '[0-9.]+ MiB' \
	' Data' '[0-9.]+ MiB' | columns "$cap")
assert_all_same "ru disks: size column" "$cols"
cols=$(printf '%s\t%s\n' 'ДИСК / РАЗДЕЛ' 'НА МЕСТЕ' ' EFI' 'нет' ' Data' 'да' | columns "$cap")
assert_all_same "ru disks: in-place column" "$cols"
tmux_send "$srv" '?'
tmux_wait_for "$srv" "Нажмите любую клавишу, чтобы закрыть." 10
save ru-2-help
assert_contains "ru help: keys" "$(cat "$cap")" "Клавиши"
assert_fits "ru help" 100
tmux_send "$srv" Space
tmux_wait_for "$srv" "Выберите раздел для шифрования на месте" 10
tmux_send "$srv" Enter
tmux_wait_for "$srv" "План для $img:2" 30
# The title comes first; the plan's body once it is made (seconds, under load).
tmux_wait_for "$srv" "Пока ничего не изменено." 30
save ru-3-plan
s=$(cat "$cap")
assert_contains "ru plan: volume" "$s" "Зашифрованный том"
assert_contains "ru plan: strategy" "$s" "сжатие: файловая система"
assert_contains "ru plan: benchmark box" "$s" "[x] Замерить скорость"
assert_contains "ru plan: nothing changed yet" "$s" "Пока ничего не изменено."
assert_fits "ru plan" 100
tmux_send "$srv" Space
tmux_wait_for "$srv" "[ ] Замерить скорость" 10
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Выбор парольной фразы" 10
tmux_send "$srv" -l "$pass"
tmux_send "$srv" Tab
tmux_send "$srv" -l "$pass"
tmux_wait_for "$srv" "Надёжность: высокая." 10
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Введите ДА и нажмите Enter" 10
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Не подтверждено: это было не ДА. Ничего не изменено." 10
save ru-4-confirm
assert_fits "ru confirm" 100
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Выбор парольной фразы" 10
tmux_send "$srv" Escape
tmux_wait_for "$srv" "План для $img:2" 10
tmux_send "$srv" q
tmux_wait_exit "$srv" 20
assert_eq "ru: quit status" 0 "$(tmux_exit_status "$srv")"
assert_eq "ru: the image is unchanged" "$before_sum" "$(sha256sum "$img" | cut -d' ' -f1)"

# 3. The wizard in Japanese: columns of double-width text, a resize, a narrow terminal,
#    then the confirmation word typed in Japanese starts the conversion.
start ja_JP.UTF-8 100 30
tmux_wait_for "$srv" "その場で暗号化するパーティションを選んでください" 20
save ja-1-disks
s=$(cat "$cap")
assert_contains "ja disks: column header" "$s" "ディスク / パーティション"
assert_contains "ja disks: eligible" "$s" "可 (shrink)"
assert_contains "ja disks: EFI refused" "$s" "不可 (efi-system)"
assert_contains "ja disks: reason" "$s" "その場で暗号化できます"
assert_fits "ja disks 100x30" 100
check_ja_columns()
{
	local h v cols

	for c in 'サイズ	[0-9.]+ MiB' 'FS種別	vfat|ext4' 'ラベル	BOOTFS|files' \
		 'その場で暗号化	可|不可'; do
		h=${c%%	*} v=${c#*	}
		cols=$(printf '%s\t%s\n' 'ディスク / パーティション' "$h" ' EFI' "$v" \
			' Data' "$v" | columns "$cap")
		assert_all_same "ja disks $1: column $h" "$cols"
	done
}
check_ja_columns 100x30
tmux_resize "$srv" 91 24
wait_gone "マウント先" 10
save ja-2-disks-91x24
assert_eq "ja: pane 91x24" 91x24 "$(tmux_size "$srv")"
assert_fits "ja disks 91x24" 91
check_ja_columns 91x24
# An odd width puts double-width characters of the hint line across the right edge.
tmux_resize "$srv" 61 20
wait_gone "ラベル" 10
save ja-3-disks-61x20
assert_fits "ja disks 61x20" 61
assert_not_contains "ja disks 61x20: no label column" "$(cat "$cap")" "ラベル"
assert_contains "ja disks 61x20: the reason is not cut" "$(tr -d '\n' <"$cap")" \
	"ファイルシステムを 32 MiB 縮小します。"
cols=$(printf '%s\t%s\n' 'サイズ' 'サイズ' ' EFI' '[0-9.]+ MiB' ' Data' \
	'[0-9.]+ MiB' | columns "$cap")
assert_all_same "ja disks 61x20: size column" "$cols"
tmux_resize "$srv" 100 30
tmux_wait_for "$srv" "マウント先" 10
save ja-4-disks-again
assert_fits "ja disks after the resizes" 100
check_ja_columns "after the resizes"
tmux_send "$srv" '?'
tmux_wait_for "$srv" "何かキーを押すと閉じます。" 10
save ja-5-help
assert_contains "ja help: keys" "$(cat "$cap")" "キー操作"
assert_fits "ja help" 100
tmux_send "$srv" Space
tmux_wait_for "$srv" "その場で暗号化するパーティションを選んでください" 10
tmux_send "$srv" Enter
tmux_wait_for "$srv" "$img:2 の計画" 30
tmux_wait_for "$srv" "まだ何も変更していません。" 30
save ja-6-plan
s=$(cat "$cap")
assert_contains "ja plan: volume" "$s" "暗号化ボリューム"
assert_contains "ja plan: strategy" "$s" "縮小：ファイルシステムの末尾"
assert_contains "ja plan: nothing changed yet" "$s" "まだ何も変更していません。"
assert_fits "ja plan" 100
# The values start in one column after labels of different widths.
cols=$(for l in パーティション 方式 ヘッダー ファイルシステム 暗号化ボリューム 暗号方式 \
	       セクターサイズ; do printf '^ *%s \t^ *%s +(\\S)\n' "$l" "$l"; done | columns "$cap")
assert_all_same "ja plan: value column" "$cols"
tmux_send "$srv" Space
tmux_wait_for "$srv" "[ ] 最初に暗号化前のファイルシステムの速度を測定する" 10
tmux_send "$srv" Enter
tmux_wait_for "$srv" "パスフレーズの設定" 10
tmux_send "$srv" -l "$pass"
tmux_send "$srv" Tab
tmux_send "$srv" -l "$pass"
tmux_wait_for "$srv" "強度: 強い。" 10
save ja-7-passphrase
assert_not_contains "ja: passphrase never on screen" "$(cat "$cap")" "horse"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "開始するには はい と入力して Enter を押してください" 10
tmux_send "$srv" -l "はい"
tmux_wait_for "$srv" "> はい" 10
save ja-8-confirm
assert_fits "ja confirm" 100
tmux_send "$srv" Enter
tmux_wait_for "$srv" "$img:2 を暗号化中" 30
save ja-9-progress
assert_fits "ja progress" 100
# The running state is short on a small image: catch it if it shows, for the capture.
for _ in $(seq 300); do
	s=$(tmux_capture "$srv")
	if grep -qE '状態: 実行中.*段階: 暗号化中' <<<"$s" &&
	   grep -qE '[1-9][0-9.]* [KMG]iB / [0-9.]+ MiB を暗号化済み' <<<"$s"; then
		save ja-10-running
		assert_fits "ja running" 100
		break
	fi
	grep -qF "$img:2 の結果" <<<"$s" && break
	sleep 0.1
done
tmux_wait_for "$srv" "$img:2 の結果" 600
save ja-11-results
assert_contains "ja results: encrypted" "$(cat "$cap")" "$img:2 は暗号化されています (LUKS2"
assert_fits "ja results" 100
tmux_send "$srv" q
tmux_wait_exit "$srv" 20
assert_eq "ja: quit status" 0 "$(tmux_exit_status "$srv")"
state_now=$(FDEWIZ_STATE_DIR=$state "$FDEWIZ" status --json "$img:2" |
	    jq -r '.conversions[0].state')
assert_eq "ja: status after the wizard" complete "$state_now"

# 4. Independent check: cryptsetup decrypts through a new header file, then fsck and sums.
verify_encrypted "$img" "$pass" 2
assert_finish
