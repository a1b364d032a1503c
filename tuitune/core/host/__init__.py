"""The only code that reads or writes the kernel: procfs, sysfs, netlink and ioctl.

Imports the standard library, pyroute2, pyudev, psutil and the lowest core modules (values,
cpulist, names, fsutil, proc); never session/, export/, bench/ or anything above the core."""
