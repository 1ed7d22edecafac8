/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the wizard's text layout: widths, wrapping, Japanese line breaks, boxes. */
#include "unit.h"

#include <locale.h>

#include "tui/textlayout.h"

/* Text of the ja translation, as the wizard shows it. */
#define JA_NO_SUCH "そのようなデバイスまたはファイルはありません。'lsblk' または " \
	"'fdewiz list' で名前を確認してください"
#define JA_KEEP "このコンピューターから離れた場所に保管してください：持っている人は誰でも" \
	"データを読めます。"
#define JA_PASS "パスフレーズは起動のたびに暗号化パーティションを開くのに使います。これが" \
	"なければ、あなたも含めて誰もデータを読めません。大切に保管してください。"
#define JA_CONFIRM "「はい」と入力して Enter を押すと開始します（Esc で戻ります）。" \
	"まだ何も変更していません。"
#define RU_PASS "Парольная фраза открывает зашифрованный раздел при каждом запуске. Без " \
	"неё данные не сможет прочитать никто, включая вас: храните её надёжно."

static int setup(void **state)
{
	(void)state;
	/* wcwidth() knows CJK widths only in a UTF-8 locale. */
	return setlocale(LC_ALL, "C.UTF-8") ? 0 : -1;
}

static void test_width(void **state)
{
	(void)state;
	assert_int_equal(tui_width(""), 0);
	assert_int_equal(tui_width(NULL), 0);
	assert_int_equal(tui_width("disk"), 4);
	assert_int_equal(tui_width("Диск"), 4);		/* Cyrillic: one cell each */
	assert_int_equal(tui_width("暗号化"), 6);	/* CJK: two cells each */
	assert_int_equal(tui_width("LUKS2 ヘッダー"), 6 + 2 * 4);
	/* Control characters and bad bytes from a label are shown escaped: "\x1b" is 4 cells. */
	assert_int_equal(tui_width("a\x1b[2Jb"), 1 + 4 + 3 + 1);
	assert_int_equal(tui_width("\xff"), 4);
	assert_int_equal(tui_width("a\tb"), 3);
}

/* Every line fits in @w cells, and the lines together are the text minus the spaces cut. */
static int wrap(const char *s, int w, wchar_t *buf, size_t *n, struct tui_text_line *lines)
{
	int count;

	*n = tui_text_decode(s, buf, TUI_TEXT_MAX);
	count = tui_text_wrap(buf, *n, w, 100, lines);
	for (int i = 0; i < count; i++) {
		int cells = 0;

		for (size_t j = lines[i].start; j < lines[i].end; j++)
			cells += tui_text_cell_width(buf[j]);
		assert_true(cells <= w);
		assert_true(lines[i].end > lines[i].start);
		if (i > 0)
			assert_true(lines[i].start >= lines[i - 1].end);
	}
	if (count)
		assert_int_equal(lines[count - 1].end, *n);
	return count;
}

static void test_wrap_latin_and_russian(void **state)
{
	wchar_t buf[TUI_TEXT_MAX];
	struct tui_text_line lines[100];
	size_t n;

	(void)state;
	assert_int_equal(wrap("one two three", 8, buf, &n, lines), 2);
	assert_int_equal(lines[0].end, 7);	/* "one two" */
	assert_int_equal(lines[1].start, 8);	/* "three": the space is not carried over */
	/* A word longer than the line is cut, not lost. */
	assert_int_equal(wrap("abcdefghij", 4, buf, &n, lines), 3);
	/* Russian breaks at spaces only, never inside a word. */
	for (int w = 20; w <= 70; w++) {
		int count = wrap(RU_PASS, w, buf, &n, lines);

		assert_int_equal(count, tui_wrap_count(w, 100, RU_PASS));
		for (int i = 0; i + 1 < count; i++)
			assert_true(lines[i].end == n || buf[lines[i].end] == L' ');
	}
	assert_int_equal(tui_wrap_count(0, 5, "text"), 0);
	assert_int_equal(tui_wrap_count(10, 1, RU_PASS), 1);
}

/* A newline breaks the line there; the next line keeps its indent (a listed item). */
static void test_hard_breaks(void **state)
{
	wchar_t buf[TUI_TEXT_MAX];
	struct tui_text_line lines[100];
	size_t n;

	(void)state;
	assert_int_equal(wrap("one\n  two three", 20, buf, &n, lines), 2);
	assert_int_equal(lines[0].end, 3);	/* "one" */
	assert_int_equal(lines[1].start, 4);	/* "  two three": the indent kept */
	assert_int_equal(tui_wrap_count(20, 100, "one\n  two three"), 2);
	/* Wrapping still happens inside each line. */
	assert_int_equal(wrap("aaa bbb\nccc", 4, buf, &n, lines), 3);
	assert_int_equal(lines[2].start, 8);
	/* Two newlines: an empty line between. */
	n = tui_text_decode("a\n\nb", buf, TUI_TEXT_MAX);
	assert_int_equal(tui_text_wrap(buf, n, 10, 100, lines), 3);
	assert_int_equal(lines[1].start, lines[1].end);
	assert_int_equal(tui_wrap_count(10, 100, "a\n\nb"), 3);
	/* A wrap at the spaces before a newline makes no empty line. */
	assert_int_equal(tui_wrap_count(4, 100, "aaaa \nb"), 2);
	/* On one line a newline takes the cell of a space. */
	assert_int_equal(tui_width("a\nb"), 3);
}

static void test_kinsoku(void **state)
{
	const char *texts[] = { JA_NO_SUCH, JA_KEEP, JA_PASS, JA_CONFIRM };
	wchar_t buf[TUI_TEXT_MAX];
	struct tui_text_line lines[100];
	size_t n;

	(void)state;
	assert_true(tui_text_no_line_start(L'。'));
	assert_true(tui_text_no_line_start(L'、'));
	assert_true(tui_text_no_line_start(L'」'));
	assert_true(tui_text_no_line_start(L'）'));
	assert_true(tui_text_no_line_start(L'ー'));
	assert_true(tui_text_no_line_start(L'ッ'));
	assert_false(tui_text_no_line_start(L'あ'));
	assert_true(tui_text_no_line_end(L'「'));
	assert_true(tui_text_no_line_end(L'（'));
	assert_false(tui_text_no_line_end(L'。'));
	for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
		for (int w = 10; w <= 70; w++) {
			int count = wrap(texts[t], w, buf, &n, lines);

			assert_int_equal(count, tui_wrap_count(w, 100, texts[t]));
			for (int i = 1; i < count; i++) {
				assert_false(tui_text_no_line_start(buf[lines[i].start]));
				assert_false(tui_text_no_line_end(buf[lines[i - 1].end - 1]));
			}
		}
	}
	/* Japanese breaks between characters: no spaces needed, and none lost. */
	assert_int_equal(wrap("あいうえおかきくけこ", 10, buf, &n, lines), 2);
	assert_int_equal(lines[0].end, 5);
	/* "。" does not start the second line: the character before it goes down with it. */
	assert_int_equal(wrap("あいうえお。かきくけこ", 10, buf, &n, lines), 3);
	assert_int_equal(lines[0].end, 4);
	assert_int_equal(buf[lines[1].start], L'お');
	/* "「" does not end a line: it goes down with the word it opens. */
	assert_int_equal(wrap("あいう「えお」かき", 8, buf, &n, lines), 3);
	assert_int_equal(lines[0].end, 3);
	assert_int_equal(buf[lines[1].start], L'「');
}

/*
 * The dialog box counts its lines by the rule it draws them with. It used to count with
 * breaks at spaces only, while the text was drawn with CJK breaks and kinsoku: on a 62-column
 * terminal this message counted 2 lines, was drawn in 3, and its last line was lost.
 */
static void test_box_lines(void **state)
{
	wchar_t buf[TUI_TEXT_MAX];
	struct tui_text_line lines[100];
	size_t n;
	int count;

	(void)state;
	assert_int_equal(tui_box_width(62), 54);
	assert_int_equal(tui_box_width(200), 70);
	count = wrap(JA_NO_SUCH, tui_box_width(62) - 4, buf, &n, lines);
	assert_int_equal(count, 3);
	assert_int_equal(tui_box_lines(JA_NO_SUCH, 62, 24, 0), 3);
	/* Its last line is the end of the sentence. */
	assert_int_equal(buf[lines[2].end - 1], L'い');
	for (int cols = 60; cols <= 100; cols++) {
		const char *texts[] = { JA_NO_SUCH, JA_KEEP, JA_PASS, JA_CONFIRM, RU_PASS };

		for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++)
			assert_int_equal(tui_box_lines(texts[t], cols, 40, 0),
					 wrap(texts[t], tui_box_width(cols) - 4, buf, &n, lines));
	}
	/* A short terminal: the box keeps its frame and hint, the text gives way. */
	assert_int_equal(tui_box_lines(JA_PASS, 60, 40, 0), 3);
	assert_int_equal(tui_box_lines(JA_PASS, 60, 12, 3), 1);
	assert_int_equal(tui_box_lines(JA_PASS, 60, 10, 0), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_wrap_latin_and_russian),
		cmocka_unit_test(test_hard_breaks),
		cmocka_unit_test(test_kinsoku),
		cmocka_unit_test(test_box_lines),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
