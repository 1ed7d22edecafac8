/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the front-ends (src/cli, src/tui) use of convert/ (the flows: plan, encrypt,
 * erase, prediction, results): the one header of this folder they include. */
#ifndef FDW_CONVERT_API_H
#define FDW_CONVERT_API_H

#include "decrypt_flow.h"
#include "encrypt_flow.h"
#include "encrypt_settings.h"
#include "encrypt_start.h"
#include "foreground.h"
#include "job_control.h"
#include "launch.h"
#include "erase.h"
#include "plan.h"
#include "predict.h"
#include "restart.h"
#include "results.h"
#include "resume.h"

#endif
