"""`tuitune capture`: this host as `--root` reads it, in one tar.gz (docs/capture.md).

trace.py runs the tree reading code on this machine and lists what it opens; build.py copies
those files (and the links on their way) into the archive, anonymised (anon.py), with the
ethtool state as JSON (device.py) and a short recording; unpack.py reads an archive back as
hostile input into a private directory that `HostRoot.fixture` then reads.
"""
