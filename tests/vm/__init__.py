"""The VM bench's tests: they run as root inside a QEMU guest with real NIC drivers (e1000e,
multi-queue virtio-net), booted by scripts/vm; tests/vm/test_bench_host.py boots it from the
normal suite. Helpers and fixtures are in conftest.py; they may import tuitune and tests.support."""
