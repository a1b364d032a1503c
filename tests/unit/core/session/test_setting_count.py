"""How many settings the user changed, as the header and the quit question count them."""

from __future__ import annotations

from tuitune.core.session.settings import Key, setting_count


def test_a_moved_processes_threads_count_with_it() -> None:
    # What the header's "N changed" and the quit question count (Session.change_count).
    whole = Key.proc_affinity(812, 99, comm="nuttcp")
    threads = [Key.proc_affinity(812, 99, tid, "nuttcp") for tid in (812, 815)]
    alone = Key.proc_affinity(900, 7, 901, "iperf3")  # one thread moved by itself
    mtu = Key("mtu", "eth2", "mtu", None)
    assert setting_count([whole, *threads]) == 1
    assert setting_count([whole, *threads, alone, mtu]) == 3
    # Another process's thread with a number that starts the same does not count with it.
    assert setting_count([Key.proc_affinity(81, 99), Key.proc_affinity(812, 99, 815)]) == 2
