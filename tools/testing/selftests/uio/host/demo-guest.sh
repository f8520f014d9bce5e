#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the demo guest (as /tests/demo): show what UIO offers, then
# let the user-space edu driver work the device through /dev/uioN.
set -e
echo "--- lsuio -m: the UIO devices and their maps"
/bin/lsuio -m
echo
echo "--- edu_uio: a user-space driver for QEMU's edu device"
/bin/edu_uio
echo
echo "--- cifctl: the user-space driver of the Hilscher CIF card"
/bin/cifctl info
/bin/cifctl mailbox "hello from user space"
/bin/cifctl cycles 5 2000
