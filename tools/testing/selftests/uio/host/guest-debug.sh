# SPDX-License-Identifier: GPL-2.0
# Settings and hooks for guest-init.sh on the debug kernel (install as
# /etc/uio-guest.sh).
#
# KASAN and lockdep under TCG: everything takes several times longer, and
# KASAN's quarantine keeps up to 1/32 of the guest's memory in freed
# objects, which the stress tests' memory bounds would count as growth.
# Leaks are judged by kmemleak instead: those found before our modules load
# are the kernel's own and are cleared; after the modules are unloaded it
# scans twice and prints what it found, so any leak of ours is in the log.
UIO_STRESS_TIME_SCALE=6
UIO_STRESS_MEM_KB=40960
UIO_STRESS_TEST_MEM_KB=40960

before_tests() {
	mount -t debugfs debugfs /sys/kernel/debug
	if [ -w /sys/kernel/debug/kmemleak ]; then
		echo scan > /sys/kernel/debug/kmemleak
		echo clear > /sys/kernel/debug/kmemleak
	else
		echo "=== INSMOD FAILED kmemleak is not available"
	fi
}

after_tests() {
	# kmemleak ignores objects younger than 5 s, and one whose contents
	# changed since the previous scan waits for the next: scan twice.
	# The wait also lets the last kobject releases, which
	# DEBUG_KOBJECT_RELEASE delays by 1-4 s, run before the scan (a
	# release that touches an unloaded module or freed memory is
	# reported now, not after the log is dumped).
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
	echo "=== KMEMLEAK BEGIN"
	cat /sys/kernel/debug/kmemleak
	echo "=== KMEMLEAK END"
}
