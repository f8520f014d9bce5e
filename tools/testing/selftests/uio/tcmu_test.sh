#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TCMU, the largest in-tree UIO user, at run time with its real client:
# Debian's tcmu-runner (qcow handler) serves two user backstores that
# tcm_loop exports as SCSI disks. The files come from host/tcmu.sh;
# /etc/tcmu-flavour says whether target_core_user (and uio) are ours or
# Debian's mainline modules, for the comparison run.
#
# Data written with direct I/O must read back identical before and after
# TCMU reclaims data-area pages, which it unmaps through the inode its
# open() hook got: the runner's mapping must shrink, or the runner keeps
# pages the kernel has reused. Then the LUNs and backstores go away
# while the runner holds /dev/uioN.
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu
flavour=$(cat /etc/tcmu-flavour)
cfg=/sys/kernel/config/target
param=/sys/module/target_core_user/parameters/global_max_data_area_mb
mb=32
n=0
failed=0
loaded=
runner=

result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $flavour: $2"
	else
		echo "not ok $n $flavour: $2"
		failed=1
	fi
}

# check <description> <command...>
check() {
	_d=$1
	shift
	"$@"
	result $? "$_d"
}

# Everything this script set up, in reverse, whatever state it is in.
cleanup() {
	[ -n "$runner" ] && kill "$runner" 2> /dev/null && wait "$runner"
	umount /sys/kernel/config 2> /dev/null
	for m in $loaded; do
		rmmod "${m%.ko}" || echo "# rmmod ${m%.ko} failed"
	done
}

runner_log() {
	cat /tmp/runner.log /var/log/tcmu-runner.log 2> /dev/null |
		tail -n 40 | sed 's/^/# runner: /'
}

bail() {
	echo "# $*"
	runner_log
	cleanup
	exit 1
}

# The resident size in kB of the runner's mappings of /dev/uio*.
runner_rss() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / {uio = ($6 ~ /^\/dev\/uio/)}
	     uio && /^Rss:/ {kb += $2} END {print kb + 0}' "/proc/$runner/smaps"
}

# wait_for <seconds> <command...>: until the command succeeds.
wait_for() {
	_t=$(($1 * 10))
	shift
	until "$@"; do
		_t=$((_t - 1))
		[ "$_t" -gt 0 ] || return 1
		sleep 0.1
	done
}

# The sdX tcm_loop made for LUN $1.
lun_disk() {
	for d in /sys/bus/scsi/devices/*:*:*:"$1"/block/*; do
		[ -e "$d" ] && basename "$d" && return 0
	done
	return 1
}

drop_caches() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# compare <disk> <pattern file> <MiB>: read back with direct I/O.
compare() {
	drop_caches
	dd if="/dev/$1" of=/tmp/back bs=1M count="$3" iflag=direct 2> /dev/null &&
		cmp "$2" /tmp/back
}

echo "1..10"
kmods=/lib/modules/$(uname -r)/tcmu
for m in $(cat "$kmods/order"); do
	insmod "$kmods/$m" || bail "insmod $m failed"
	loaded="$m $loaded"
done
mkdir -p /sys/kernel/config
grep -q configfs /proc/mounts || mount -t configfs none /sys/kernel/config
[ -d "$cfg" ] || bail "no $cfg"

# The runner locks /run/tcmu.lock and logs to /var/log.
mkdir -p /run /var/log
/usr/bin/tcmu-runner -l /var/log > /tmp/runner.log 2>&1 &
runner=$!
sleep 2
kill -0 "$runner" || bail "tcmu-runner exited"

for i in 1 2; do
	b=$cfg/core/user_$i/disk$i
	mkdir -p "$b" &&
		echo "dev_config=qcow//images/disk$i.qcow2" > "$b/control" &&
		echo "dev_size=$((48 << 20))" > "$b/control" &&
		echo 1 > "$b/enable" || bail "backstore $i"
done
tpg=$cfg/loopback/naa.5001405000000001/tpgt_1
mkdir -p "$tpg" || bail "tcm_loop target"
echo naa.5001405000000002 > "$tpg/nexus" || bail "tcm_loop nexus"
for i in 1 2; do
	mkdir "$tpg/lun/lun_$((i - 1))" &&
		ln -s "$cfg/core/user_$i/disk$i" "$tpg/lun/lun_$((i - 1))/disk$i" ||
		bail "LUN $i"
done
wait_for 60 lun_disk 0 > /dev/null && wait_for 60 lun_disk 1 > /dev/null ||
	bail "no SCSI disks from tcm_loop"
sda=$(lun_disk 0)
sdb=$(lun_disk 1)
wait_for 30 test -b "/dev/$sda" && wait_for 30 test -b "/dev/$sdb" ||
	bail "no /dev/$sda or /dev/$sdb"
echo "# LUNs on /dev/$sda and /dev/$sdb, runner pid $runner"

dd if=/dev/urandom of=/tmp/pat1 bs=1M count=$mb 2> /dev/null
dd if=/dev/urandom of=/tmp/pat2 bs=1M count=$mb 2> /dev/null
dd if=/tmp/pat1 of="/dev/$sda" bs=1M oflag=direct 2> /dev/null &&
	dd if=/tmp/pat2 of="/dev/$sdb" bs=1M oflag=direct 2> /dev/null
result $? "write $mb MiB of random data to each disk with direct I/O"
check "read back identical before reclaim" compare "$sda" /tmp/pat1 $mb
check "second disk reads back identical before reclaim" \
	compare "$sdb" /tmp/pat2 $mb

# Reclaim: lowering the global limit at run time schedules it at once.
max=$(cat "$param")
before=$(runner_rss)
echo 1 > "$param"
sleep 3
after=$(runner_rss)
echo "# runner's /dev/uio mappings: $before kB resident before reclaim, $after kB after"
[ "$after" -lt "$before" ]
result $? "reclaim shrinks the runner's mapping ($before kB -> $after kB)"
echo "$max" > "$param"
check "read back identical after reclaim" compare "$sda" /tmp/pat1 $mb

# More I/O into reclaimed blocks, then reclaim again.
dd if=/dev/urandom of=/tmp/pat3 bs=1M count=8 2> /dev/null
dd if=/tmp/pat3 of=/tmp/pat1 bs=1M seek=8 conv=notrunc 2> /dev/null
dd if=/tmp/pat3 of="/dev/$sda" bs=1M seek=8 oflag=direct 2> /dev/null &&
	compare "$sda" /tmp/pat1 $mb && compare "$sdb" /tmp/pat2 $mb
result $? "more I/O after reclaim reads back identical"
echo 1 > "$param"
sleep 3
echo "$max" > "$param"
compare "$sda" /tmp/pat1 $mb && compare "$sdb" /tmp/pat2 $mb
result $? "read back identical after a second reclaim"

# Take LUNs and backstores away while the runner holds /dev/uioN.
for i in 1 2; do
	rm "$tpg/lun/lun_$((i - 1))/disk$i" && rmdir "$tpg/lun/lun_$((i - 1))"
done
echo NULL > "$tpg/nexus"
rmdir "$tpg" "${tpg%/*}" "${tpg%/*/*}" &&
	rmdir "$cfg/core/user_1/disk1" "$cfg/core/user_2/disk2" &&
	rmdir "$cfg/core/user_1" "$cfg/core/user_2"
result $? "LUNs and backstores removed while the runner holds /dev/uioN"
wait_for 20 sh -c "! ls -l /proc/$runner/fd | grep -q /dev/uio" &&
	kill -0 "$runner"
result $? "the runner lets go of /dev/uioN and keeps running"

[ $failed = 0 ] || runner_log
kill "$runner" && wait "$runner"
runner=
umount /sys/kernel/config
rc=0
for m in $loaded; do
	rmmod "${m%.ko}" || rc=1
done
loaded=
result $rc "every module unloads"
exit $failed
