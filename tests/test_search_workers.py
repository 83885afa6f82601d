"""The search worker processes: jobs in order, stop, and no hang when a worker dies or
ignores stop. The job functions live here; spawned workers import this module."""

import os
import threading
import time

import pytest

import search.workers
from search.workers import WorkerError, WorkerPool

pytestmark = pytest.mark.slow          # every test spawns worker processes

WAIT_S = 30.0


def double(job, poll_stop):
    return job * 2


def until_stopped(job, poll_stop):
    deadline = time.monotonic() + WAIT_S
    while not poll_stop():
        if time.monotonic() > deadline:
            return "never stopped"
        time.sleep(0.01)
    return "stopped"


def die(job, poll_stop):
    os._exit(3)


def ignore_stop(job, poll_stop):
    threading.Event().wait()


def ended(processes) -> bool:
    for process in processes:
        process.join(WAIT_S)
    return not any(process.is_alive() for process in processes)


def test_jobs_come_back_in_order_and_stop_reaches_a_running_job():
    pool = WorkerPool(3, double)
    try:
        pool.start()
        processes = [process for process, _ in pool._workers]
        pool.submit([1, 2, 3])
        assert pool.collect() == [2, 4, 6]
    finally:
        pool.close()
    assert ended(processes)
    pool = WorkerPool(2, until_stopped)
    try:
        pool.submit([0, 0])
        pool.stop()
        assert pool.collect() == ["stopped", "stopped"]
    finally:
        pool.close()


def test_a_worker_that_dies_is_an_error_not_a_hang_and_the_pool_starts_again():
    pool = WorkerPool(2, die)
    pool.submit([0, 0])
    with pytest.raises(WorkerError, match="exit code 3"):
        pool.collect()
    assert pool.pids() == []                       # closed: the next submit starts afresh
    pool.function = double
    try:
        pool.submit([5, 6])
        assert pool.collect() == [10, 12]
    finally:
        pool.close()


def test_a_worker_that_ignores_stop_is_ended(monkeypatch):
    monkeypatch.setattr(search.workers, "STOP_WAIT_S", 0.5)
    pool = WorkerPool(1, ignore_stop)
    pool.start()
    processes = [process for process, _ in pool._workers]
    pool.submit([0])
    pool.stop()
    with pytest.raises(WorkerError, match="no answer in time"):
        pool.collect()
    assert ended(processes)
