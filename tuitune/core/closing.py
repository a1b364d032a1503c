"""`with X(...) as x:` for every core object that holds something to let go of (a directory
fd, an ethtool socket, a namespace's kernel thread, a reader, a session): the block ends with
x.close(), however it ends. One mixin instead of the same two methods in each class."""

from __future__ import annotations

from typing import Self


class Closing:
    __slots__ = ()

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
