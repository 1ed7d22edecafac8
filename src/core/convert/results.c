/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The words for a finished conversion: its summary and the verdict of its benchmarks. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/i18n.h"
#include "boot/tpm.h"
#include "predict.h"
#include "results.h"
#include "boot/system_boot.h"

void fdw_results_verdict(const struct fdw_bench_delta *d, size_t n, char *buf, size_t len)
{
	double sum = 0, mean;
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		if (d[i].suspicious)
			continue;
		sum += d[i].slowdown_pct;
		used++;
	}
	if (!used) {
		snprintf(buf, len, "%s", _("The measurements do not allow a conclusion; run fdewiz "
					   "bench again on a quiet system."));
		return;
	}
	mean = sum / (double)used;
	if (mean < FDW_RESULTS_CHEAP_PCT)
		snprintf(buf, len, _("Encryption costs almost nothing on this machine (%.0f%% "
				     "slower on average)."), mean);
	else if (mean < FDW_RESULTS_SMALL_PCT)
		snprintf(buf, len, _("Encryption costs a little speed (%.0f%% slower on average); "
				     "most people will not notice it."), mean);
	else if (mean < FDW_RESULTS_NOTICEABLE_PCT)
		snprintf(buf, len, _("Encryption costs noticeable speed on this machine (%.0f%% "
				     "slower on average)."), mean);
	else
		snprintf(buf, len, _("Encryption costs a lot of speed here (%.0f%% slower on "
				     "average); see the cipher recommendation."), mean);
}

bool fdw_results_has_figure(const struct fdw_bench_test *t)
{
	return t && t->primary < t->n_metrics && t->metrics[t->primary].n > 0;
}

double fdw_results_predicted(const struct fdw_bench_run *pred, const char *id, const char *key,
			     double baseline)
{
	double r = fdw_predict_ratio(pred, id, key);

	return r > 0 && baseline > 0 ? baseline * r : -1;
}

double fdw_results_predicted_slowdown(const struct fdw_bench_run *pred, const char *id,
				      const char *key)
{
	return fdw_predict_slowdown_of(pred, id, key);
}

/* The probe's plain figure of line @id for @key and its spread; false when it has none. */
static bool probe_figure(const struct fdw_bench_run *pred, const char *id, const char *key,
			 double *v, double *spread)
{
	char plain_key[32];

	for (size_t i = 0; pred && i < pred->n_tests; i++) {
		const struct fdw_bench_metric *m;

		if (strcmp(pred->tests[i].id, id) != 0)
			continue;
		snprintf(plain_key, sizeof(plain_key), "plain_%s", key);
		m = fdw_bench_metric_get(&pred->tests[i], plain_key);
		if (!m || !m->n || m->median <= 0)
			return false;
		*v = m->median;
		*spread = m->spread_pct;
		return true;
	}
	return false;
}

bool fdw_results_probe_note(const struct fdw_bench_run *pred, const struct fdw_bench_run *base,
			    char *buf, size_t len)
{
	double worst = 0, worst_probe = 0, worst_base = 0;
	const char *title = NULL;

	buf[0] = '\0';
	for (size_t i = 0; base && i < base->n_tests; i++) {
		const struct fdw_bench_test *t = &base->tests[i];
		const struct fdw_bench_metric *m = fdw_results_has_figure(t) ?
						   &t->metrics[t->primary] : NULL;
		double probe, probe_spread, off, noise;

		if (!m || m->median <= 0 || !probe_figure(pred, t->id, m->key, &probe,
							 &probe_spread))
			continue;
		off = (probe > m->median ? probe - m->median : m->median - probe) / m->median * 100;
		noise = probe_spread > m->spread_pct ? probe_spread : m->spread_pct;
		if (noise < FDW_RESULTS_PROBE_FLOOR_PCT)
			noise = FDW_RESULTS_PROBE_FLOOR_PCT;
		if (off > noise && off > worst) {
			worst = off;
			worst_probe = probe;
			worst_base = m->median;
			title = t->title;
		}
	}
	if (!title)
		return false;
	if (worst_probe > worst_base)
		snprintf(buf, len, _("The plan's quick look saw this disk %.0f%% faster than the "
				     "baseline did (%s): each prediction here is the baseline's figure "
				     "times the slowdown predicted."), worst, fdw_gettext_read(title));
	else
		snprintf(buf, len, _("The plan's quick look saw this disk %.0f%% slower than the "
				     "baseline did (%s): each prediction here is the baseline's figure "
				     "times the slowdown predicted."), worst, fdw_gettext_read(title));
	return true;
}

void fdw_results_prediction_verdict(const struct fdw_bench_delta *d, size_t n,
				    const struct fdw_bench_run *pred, char *buf, size_t len)
{
	double sum = 0;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const struct fdw_bench_test *e = d[i].encrypted;
		const struct fdw_bench_metric *m = e->primary < e->n_metrics ?
						   &e->metrics[e->primary] : NULL;
		const struct fdw_bench_metric *b = m ? fdw_bench_metric_get(d[i].plain, m->key) :
						       NULL;
		double p = m && b && b->n ? fdw_results_predicted(pred, e->id, m->key, b->median) : -1;

		if (d[i].suspicious || p <= 0 || !m->n || m->median <= 0)
			continue;
		sum += (m->median > p ? m->median - p : p - m->median) / m->median * 100.0;
		used++;
	}
	if (!used)
		return;
	snprintf(buf, len, _("Predicted before the conversion: within %.0f%% of the measured "
			     "figures on average."), sum / (double)used);
}

bool fdw_results_delta_notable(const struct fdw_bench_delta *d)
{
	return d->slowdown_pct > FDW_RESULTS_SMALL_PCT;
}

/* The record keeps "aes-xts-plain64, 512-bit key" in English: said in the reader's words. */
static void cipher_text(const char *recorded, char *buf, size_t len)
{
	const char *tail = strstr(recorded, ", ");
	unsigned bits;
	int end = 0;

	/* The last ", ": Adiantum's spec has a comma of its own (xchacha12,aes-adiantum-…). */
	while (tail && strstr(tail + 2, ", "))
		tail = strstr(tail + 2, ", ");
	if (tail && tail - recorded < 64 && sscanf(tail, ", %u-bit key%n", &bits, &end) == 1 &&
	    !tail[end])
		snprintf(buf, len, _("%.*s, %u-bit key"), (int)(tail - recorded), recorded, bits);
	else
		snprintf(buf, len, "%s", recorded[0] ? recorded : "aes-xts-plain64");
}

void fdw_results_summary(const struct fdw_job *job, bool before, bool after, char *headline,
			 size_t hlen, char *note, size_t nlen)
{
	char cipher[128];

	cipher_text(job->cipher, cipher, sizeof(cipher));
	snprintf(headline, hlen, _("%s is encrypted (LUKS2, %s)."), job->address, cipher);
	if (before && after)
		note[0] = '\0';
	else if (before)
		/* The note is the engine's English sentence, recorded by the worker. */
		snprintf(note, nlen, _("Only the baseline (before encryption) was measured: %s."),
			 job->bench_note[0] ? job->bench_note :
			 _("this system has no device-mapper, so the encrypted volume cannot be "
			   "opened here and the benchmark after encryption could not run"));
	else
		snprintf(note, nlen, "%s", job->bench_note[0] ? job->bench_note :
			 _("No benchmark was run for this conversion."));
}

/* Not asked for, but this computer has a TPM 2.0: say how to have it (after the rest). */
static void tpm_offer(const struct fdw_job *job, char *buf, size_t len)
{
	struct fdw_tpm_info tpm;
	size_t used = strlen(buf);

	fdw_tpm_detect(&tpm);
	if (!tpm.present || tpm.version != 2 || used + 1 >= len)
		return;
	snprintf(buf + used, len - used, _(" This computer has a TPM 2.0: 'fdewiz tpm enrol %s', "
					   "run in that system, lets it start with nothing typed."),
		 job->address);
}

bool fdw_results_system(const struct fdw_job *job, bool *ok, char *buf, size_t len)
{
	struct fdw_system_boot_result res;
	char files[2048] = "";
	bool done = false;

	buf[0] = '\0';
	*ok = false;
	if (fdw_system_boot_status(job, &res, &done) != 0)
		return false;
	*ok = done;
	if (!done) {
		snprintf(buf, len, _("The installed system's boot is not set up yet (the log says "
				     "why); the data is intact and encrypted. Run 'fdewiz resume "
				     "%s' before starting that system."), job->address);
		return true;
	}
	/* One "path (backup)" a line in the record: one list in the sentence. */
	for (char *line = res.changed, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (*line)
			snprintf(files + strlen(files), sizeof(files) - strlen(files), "%s%.1000s",
				 files[0] ? ", " : "", line);
	}
	if (res.tpm_pcrs[0] && res.tpm_slot >= 0)
		snprintf(buf, len, _("The installed system's boot is set up: it unlocks with this "
				     "computer's TPM at its next start (keyslot %d, sealed to PCR "
				     "%s); when the TPM refuses it asks for the passphrase, and the "
				     "recovery key works there too. Files changed, each kept as a "
				     "backup: %s."), res.tpm_slot, res.tpm_pcrs,
			 files[0] ? files : _("none"));
	else
		snprintf(buf, len, _("The installed system's boot is set up: it asks for the "
				     "passphrase at its next start. Files changed, each kept as a "
				     "backup: %s.%s%s"), files[0] ? files : _("none"),
			 res.tpm_why[0] ? " " : "", res.tpm_why);
	if (!res.tpm_pcrs[0])
		tpm_offer(job, buf, len);
	return true;
}

bool fdw_results_backup_stale(const struct fdw_job *job, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!job->header_backup_stale || !job->header_backup[0])
		return false;
	snprintf(buf, len, _("No valid header backup: %s still describes the volume before "
			     "conversion and cannot restore it (refreshing it failed; the log "
			     "says why). The volume itself is fine. Make a backup now with "
			     "'fdewiz header-backup %s FILE', FILE on another disk."),
		 job->header_backup, job->address);
	return true;
}
