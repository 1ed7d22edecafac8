/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the front-ends (src/cli, src/tui) use of base/ (the ground floor: time, logging,
 * secrets, text safety, units, power, pace, signals): the one header of this folder they
 * include. */
#ifndef FDW_BASE_API_H
#define FDW_BASE_API_H

#include "clock.h"
#include "i18n.h"
#include "log.h"
#include "pace.h"
#include "power.h"
#include "procid.h"
#include "secret.h"
#include "stopsig.h"
#include "strength.h"
#include "textsafe.h"
#include "units.h"

#endif
