"""Application affinity: the processes that use a NIC, where they run, and moving them.

model.py is the read model (what a view shows), discover.py reads it from /proc (the live host
or a recorded --root tree), affinity.py reads and writes a process's (or thread's) CPU
affinity for the journal's "proc_affinity" kind.
"""
