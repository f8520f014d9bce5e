#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of a stress guest: export the run's parameters from /stress.env
# (written by stress.sh), then do what every test guest does.
set -a
. /stress.env
set +a
exec /bin/busybox sh /guest-init.sh
