"""The only code that reads or writes the kernel: procfs, sysfs, netlink and ioctl."""
