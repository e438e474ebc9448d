#!/usr/bin/env python3
"""Builds a partitioned endgame table on a Dask cluster (docs/distributed.md).

    dask_build.py --scheduler-file FILE [--tb-build PATH] [--threads N] -- \\
        FORMATION TARGET -o DIR --partitions P [tb-build build options]

The table's folder must be storage every worker shares. This driver asks
`tb-build plan` for the stages of tasks, then submits each stage's tasks to
the cluster and waits for them all before the next stage. A task is
`tb-build task DIR NAME` run by a worker; it reads and writes files in the
table's folder only, and does nothing when its files are there, so the
scheduler may run it again on another worker when one dies (up to
`--retries` times). Dask moves no data: only task names go out and exit
codes come back.
"""

import argparse
import ctypes
import json
import os
import signal
import subprocess
import sys
import time

from distributed import Client, wait


def run_tasks(tb_build, table, names, threads):
    """Runs tasks in a worker, in one process that dies with the worker."""

    def die_with_worker():
        # PR_SET_PDEATHSIG: a killed worker takes its task with it, so
        # that no task runs on once the scheduler has moved it elsewhere.
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)

    args = [tb_build, "task", table, *names]
    if threads:
        args += ["-p", str(threads)]
    started = time.monotonic()
    done = subprocess.run(
        args, capture_output=True, text=True, preexec_fn=die_with_worker
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(names)}: {done.stderr.strip()}")
    return time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scheduler-file", required=True)
    parser.add_argument("--tb-build", default="tb-build")
    parser.add_argument("--threads", type=int, default=0,
                        help="threads of each task (default: all cores)")
    parser.add_argument("--retries", type=int, default=3)
    parser.add_argument("--batches", type=int, default=0,
                        help="split a stage into this many batches of tasks, "
                             "each run by one process (default: one a worker)")
    parser.add_argument("build", nargs=argparse.REMAINDER,
                        help="-- FORMATION TARGET -o DIR --partitions P ...")
    args = parser.parse_args()
    build = [arg for arg in args.build if arg != "--"]
    if "-o" not in build:
        parser.error("give the table's folder, on shared storage, with -o DIR")
    # Workers run in folders of their own: the table's path must be the
    # same on every machine, absolute.
    table = os.path.abspath(build[build.index("-o") + 1])
    plan = subprocess.run([args.tb_build, "plan", *build],
                          capture_output=True, text=True)
    if plan.returncode != 0:
        sys.exit(f"dask_build: {plan.stderr.strip()}")
    stages = [json.loads(line) for line in plan.stdout.splitlines()]
    client = Client(scheduler_file=args.scheduler_file)
    started = time.monotonic()
    task_seconds, tasks = 0.0, 0
    for number, stage in enumerate(stages):
        print(f"stage {number + 1}/{len(stages)}: {stage[0]}"
              f"{' ...' if len(stage) > 1 else ''} ({len(stage)} tasks)",
              flush=True)
        # A batch of tasks a process: starting one, reading the manifest
        # and making the move tables cost more than a small part's task.
        count = args.batches or len(client.scheduler_info()["workers"]) or 1
        batches = [stage[at::count] for at in range(min(count, len(stage)))]
        futures = client.map(run_tasks, [args.tb_build] * len(batches),
                             [table] * len(batches), batches,
                             [args.threads] * len(batches),
                             key=[f"{batch[0]}+{len(batch)}@{table}"
                                  for batch in batches],
                             retries=args.retries, pure=False)
        wait(futures)
        for future in futures:
            if future.status != "finished":
                sys.exit(f"dask_build: {future.exception()}")
            task_seconds += future.result()
        tasks += len(stage)
    elapsed = time.monotonic() - started
    print(f"done: {tasks} tasks in {elapsed:.1f} s, {task_seconds:.1f} s of "
          f"task time", flush=True)


if __name__ == "__main__":
    main()
