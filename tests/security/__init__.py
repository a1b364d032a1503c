"""One file per hole: the hostile part (a file, link, process or tree) is made by `nobody` and
the test runs tuitune as root, asserting on the effect (a file written, a namespace changed)."""
