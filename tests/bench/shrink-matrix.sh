#!/bin/bash
# The full shrink verdict matrix: ext4 of 512 MiB, 1 GiB and 4 GiB (sparse images), filled
# to 20, 50, 60, 80 and 95 % with one large file and with thousands of small files; every
# cell's `list --json` verdict checked against the real outcome of `encrypt`. `make check`
# runs a representative subset (tests/root/test-shrink-matrix.sh); this runs all of it.
# Takes a long while on the 4 GiB cells; prints the matrix table at the end.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export MATRIX_SIZES=${MATRIX_SIZES:-512 1024 4096}
export MATRIX_PCTS=${MATRIX_PCTS:-20 50 60 80 95}
export MATRIX_PCTS_1024=${MATRIX_PCTS_1024:-$MATRIX_PCTS}
export MATRIX_PCTS_SMALL=${MATRIX_PCTS_SMALL:-$MATRIX_PCTS}
export MATRIX_FILLS=${MATRIX_FILLS:-large small}
export MATRIX_FILLS_1024=${MATRIX_FILLS_1024:-$MATRIX_FILLS}
exec bash "$here/../root/test-shrink-matrix.sh"
