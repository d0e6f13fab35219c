"""A real Dask scheduler and worker talking TCP on loopback, in this process (fast)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

DASK = pytest.mark.xdist_group("dask-loopback")
"""Tests that start a cluster run in one pytest worker, one after the other: two
clusters started at once in two workers have left a socket open (a ResourceWarning,
an error under this suite's warnings filter)."""


@contextmanager
def loopback_cluster() -> Iterator[tuple[Any, Any]]:
    """A one-worker cluster on 127.0.0.1 and a client of it (skips without the
    ``distributed`` extra)."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=1,
            threads_per_worker=2,
            processes=False,
            protocol="tcp://",
            host="127.0.0.1",
            dashboard_address=":0",  # a free port: two clusters at once never clash
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield cluster, client
