/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Out-of-tree builds only: the kernel's <linux/device/class.h> plus what
 * UIO uses from newer kernels. See backport/README.
 */
#ifndef _BACKPORT_LINUX_DEVICE_CLASS_H
#define _BACKPORT_LINUX_DEVICE_CLASS_H

#include_next <linux/device/class.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
/* 6.4 dropped the owner argument: the class no longer pins a module. */
#undef class_create
#define class_create(name)						\
({									\
	static struct lock_class_key __key;				\
	__class_create(THIS_MODULE, name, &__key);			\
})
#endif

#endif /* _BACKPORT_LINUX_DEVICE_CLASS_H */
