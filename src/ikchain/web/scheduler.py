"""Where the lesson server's requests run, and in what order: a fair share for every
connection, charged for all the work it causes.

Every request is a job of a *flow*, one flow per connection (a WebSocket, or an HTTP
connection). Two queues, each served one job at a time in start-time fair order
(:class:`FairQueue`: the flow that has had the least time goes first, so a page that
asks little is served next whenever it asks, however much others keep queued):

- **Light**, on the event loop: every request is decoded and checked against the caps
  here, whatever its size, and a single solve whose *measured* cost is small
  (:class:`CostModel`: CPU seconds per unit of work of its method, bones and joint
  limits, calibrated at start-up and followed as frames run, at most
  :data:`LIGHT_SECONDS`) is solved here too. A light job thus waits for at most the
  one job in hand, not for every message that other connections sent first; the
  first of a turn of the loop whose flow is next runs at once, without a hop through
  the queue (:meth:`Workers.submit`).
- **What a flow is charged**: every unit of work its connection causes, not only its
  solves: each job's CPU time (decoding, checking, solving, encoding), the CPU spent
  reading and parsing its bytes and frames (its protocol), sending its replies and
  logging its errors (a :class:`Meter` per connection, charged with its next job),
  and a fee of :data:`MESSAGE_SECONDS` a message, for what is not timed and for the
  cold start of a sparse page's frame. Junk, malformed and cheap-but-many messages
  thus pay for themselves, and their sender waits while others are served.
- **Heavy**, in a separate process (:data:`HEAVY_PROCESSES`): batches, replays,
  motions and solves over the light cost, parsed and capped before they queue. A
  flow holds at most :data:`HEAVY_PER_FLOW` of the :data:`HEAVY_QUEUE` places; when
  the queue is full, a newcomer takes the newest place of the flow holding the most
  (that one is answered 429), so a page always gets its share. Each request has
  :data:`HEAVY_SECONDS` to finish (the watchdog): past it, or when the process dies,
  the process is killed and a new one started, with one log line; the requests it
  held are answered 503 with their ids.

Replies on a WebSocket go out as each is ready, by id: a page's drag frames never wait
behind its own replay or motion (the page matches replies to requests by id).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ikchain.web.processes import end_with_parent
from ikchain.web.protocol import (
    Cost,
    Heavy,
    Reply,
    error_reply,
    request_id,
    respond,
    warm,
    warming_reply,
)

logger = logging.getLogger("ikchain.web")

#: A single solve of at most this many units of work (bones × iterations, plus the
#: reach search with joint limits) may run on the event loop ...
LIGHT_WORK = 2_000
#: ... when its measured cost (:class:`CostModel`) is at most this (CPU seconds) ...
LIGHT_SECONDS = 0.001
#: ... or, at most this many units, when its cost *as calibrated at start-up* is at
#: most :data:`LIGHT_SECONDS`: every drag of the lesson (at most 4 bones × 64
#: iterations, and section 2.5's three limited bones with their reach search) is
#: solved here, whatever a mirrored run (up to 200 iterations in all) or a busy
#: machine made its kind cost lately (sending such a frame away made the honest drag
#: wait for a heavy request: a p99 of 50-80 ms beside replays); a kind that costs
#: more per unit than that at calibration is no drag, and goes with the others.
DRAG_WORK = 1_024
#: Processes for heavy requests; heavy requests waiting for them, and of those, from
#: one flow (connection). The queue holds a replay of each page of a class of 50 (the
#: size the connection limits are made for) and more: at 32 places, 40 pages asking a
#: replay a second kept it full, and a page's replays were refused (429) time and again.
HEAVY_PROCESSES = 1
HEAVY_QUEUE = 64
HEAVY_PER_FLOW = 4
#: A heavy request running longer than this (s) is stopped with its process (the caps
#: keep a request within 50 ms; this is for a stopped or looping process).
HEAVY_SECONDS = 5.0
#: How often an idle heavy process is checked for life (s).
WATCH_SECONDS = 1.0
#: After a failed start, a new heavy process is tried this much later (s).
RESTART_DELAY_SECONDS = 2.0
#: Messages one WebSocket may have in hand at once (queued, solving, or heavy); the
#: socket is not read further until one is answered.
PENDING_PER_SOCKET = 8
#: The heavy-request process runs at a lower priority: under load, drags go first.
HEAVY_NICE = 10
#: The fee (s) each message pays its flow beside its timed work, so that a client
#: sending many cheap (or malformed) messages pays for each. It covers what is not
#: timed (the socket's reads, asyncio's callbacks and tasks, Starlette's stack: about
#: 0.2 ms for a 60 KB HTTP request on a 2-core Xeon, py-spy) and more: a page sends
#: one frame in 16.7 ms, and a frame that arrives after such a pause costs about twice
#: its CPU in a tight loop (caches gone cold: 0.51 against 0.25 ms for 2.3's frame),
#: while a flood's messages run back to back, hot. Priced by CPU alone, the page then
#: asks for more than its share beside 16 such clients and its frames queue behind
#: theirs (at 0.2 ms: an honest drag's p50 11 ms beside 16 clients sending 60 KB of
#: junk; at 0.5 ms: 2.5 ms, ``ikchain bench lesson --fairness --mixes junk``). A
#: flat fee per message keeps a sparse page ahead of clients sending hundreds.
MESSAGE_SECONDS = 0.0005

T = TypeVar("T")
Flow = Hashable


# -- Fair order ------------------------------------------------------------------------------


@dataclass
class _Flow(Generic[T]):
    jobs: deque[T]
    tag: float  # virtual time at which this flow's next job may start


class FairQueue(Generic[T]):
    """Jobs of many flows, taken one at a time in start-time fair order: each flow
    has a tag, the virtual time its next job may start; :meth:`pop` takes the flow
    with the lowest tag, and :meth:`charge` moves a flow's tag on by what its job
    cost. A flow that had nothing queued starts at the current virtual time, so it
    neither banks idle time nor pays for others' backlog."""

    def __init__(self) -> None:
        self.flows: dict[Flow, _Flow[T]] = {}
        self.virtual = 0.0
        self.size = 0
        self._pops = 0

    def __len__(self) -> int:
        return self.size

    def count(self, flow: Flow) -> int:
        """Jobs of ``flow`` waiting."""
        entry = self.flows.get(flow)
        return 0 if entry is None else len(entry.jobs)

    def push(self, flow: Flow, job: T) -> None:
        entry = self.flows.get(flow)
        if entry is None:
            entry = self.flows[flow] = _Flow(deque(), self.virtual)
        elif not entry.jobs:
            entry.tag = max(entry.tag, self.virtual)
        entry.jobs.append(job)
        self.size += 1

    def pop(self) -> tuple[Flow, T]:
        """The next job (and its flow): the waiting flow with the lowest tag (of equal
        tags, the one with fewer jobs waiting).

        Raises
        ------
        IndexError
            When no job waits.
        """
        best: Flow = None
        best_entry: _Flow[T] | None = None
        for flow, entry in self.flows.items():
            if entry.jobs and (
                best_entry is None
                or entry.tag < best_entry.tag
                or (entry.tag == best_entry.tag and len(entry.jobs) < len(best_entry.jobs))
            ):
                best, best_entry = flow, entry
        if best_entry is None:
            raise IndexError("pop from an empty FairQueue")
        self.virtual = max(self.virtual, best_entry.tag)
        self.size -= 1
        self._pops += 1
        if self._pops % 256 == 0:
            self._prune()
        return best, best_entry.jobs.popleft()

    def charge(self, flow: Flow, seconds: float) -> None:
        """Count ``seconds`` of service to ``flow`` (a flow not seen yet starts now)."""
        entry = self.flows.get(flow)
        if entry is None:
            entry = self.flows[flow] = _Flow(deque(), self.virtual)
        entry.tag = max(entry.tag, self.virtual) + max(0.0, seconds)

    def tag(self, flow: Flow) -> float:
        """The virtual time at which ``flow``'s next job may start."""
        entry = self.flows.get(flow)
        return self.virtual if entry is None else max(entry.tag, self.virtual)

    def next_is(self, flow: Flow) -> bool:
        """Whether a job of ``flow``, pushed now, would be the next one popped: nothing
        waits, or no waiting flow has a lower tag (of equal tags, none with fewer jobs:
        ``flow`` has none waiting when this is asked)."""
        if self.size == 0:
            return True
        if self.count(flow):
            return False
        mine = self.tag(flow)
        return all(entry.tag > mine for entry in self.flows.values() if entry.jobs)

    def serve(self, flow: Flow) -> None:
        """``flow``'s job runs now without queueing (:meth:`next_is` said it is next):
        the virtual time moves to its tag, as :meth:`pop` would have moved it."""
        self.virtual = max(self.virtual, self.tag(flow))

    def take_newest(self, flow: Flow) -> T | None:
        """Remove and return ``flow``'s newest waiting job (None if it has none)."""
        entry = self.flows.get(flow)
        if entry is None or not entry.jobs:
            return None
        self.size -= 1
        return entry.jobs.pop()

    def busiest(self) -> Flow:
        """The flow with the most jobs waiting (None when none waits)."""
        most: Flow = None
        count = 0
        for flow, entry in self.flows.items():
            if len(entry.jobs) > count:
                most, count = flow, len(entry.jobs)
        return most

    def forget(self, flow: Flow) -> list[T]:
        """Drop ``flow`` (its connection closed); its waiting jobs."""
        entry = self.flows.pop(flow, None)
        if entry is None:
            return []
        self.size -= len(entry.jobs)
        return list(entry.jobs)

    def drain(self) -> list[T]:
        """Every waiting job, removed."""
        jobs = [job for entry in self.flows.values() for job in entry.jobs]
        for entry in self.flows.values():
            entry.jobs.clear()
        self.size = 0
        return jobs

    def _prune(self) -> None:
        idle = [f for f, e in self.flows.items() if not e.jobs and e.tag <= self.virtual]
        for flow in idle:
            del self.flows[flow]


class Meter:
    """CPU seconds a connection cost the server outside its jobs (reading and parsing
    its bytes and frames, sending its replies, logging its errors), not yet charged:
    the connection's protocol adds them as they are spent, and each message it sends
    takes them to its flow's share (:meth:`Workers.submit`). One per connection; it is
    also the connection's flow."""

    __slots__ = ("unbilled",)

    def __init__(self) -> None:
        self.unbilled = 0.0

    def add(self, seconds: float) -> None:
        """Count ``seconds`` more (CPU)."""
        self.unbilled += max(0.0, seconds)

    def take(self) -> float:
        """The seconds counted since the last take; counting starts again at 0."""
        owed, self.unbilled = self.unbilled, 0.0
        return owed


#: Where a connection's :class:`Meter` is found in its ASGI scope.
METER_KEY = "ikchain.meter"


# -- What a light solve costs ----------------------------------------------------------------


def _kind(cost: Cost) -> tuple[str, bool]:
    return cost.method, cost.limited


class CostModel:
    """CPU seconds a single solve takes on the event loop, predicted as a frame's fixed
    cost (parsing, formatting, encoding: measured on a two-bone closed-form frame)
    plus its units of work × the seconds per unit measured for its kind: per method
    and joint limits, the worst of a calibration at the light cap (:meth:`calibrate`),
    and per method, limits and bones, the running mean of what such solves took here."""

    #: Weight of each new measurement in the running mean.
    ALPHA = 0.2

    def __init__(self, light_seconds: float = LIGHT_SECONDS) -> None:
        self.light_seconds = light_seconds
        self.base = 0.0
        self.calibrated: dict[tuple[str, bool], float] = {}
        self.seen: dict[tuple[str, bool, int], float] = {}

    def predict_calibrated(self, cost: Cost) -> float:
        """Predicted CPU seconds of a solve of this :class:`Cost` by the start-up
        calibration alone (the fixed cost only when its kind was not calibrated)."""
        return self.base + self.calibrated.get(_kind(cost), 0.0) * max(1, cost.work)

    def predict(self, cost: Cost) -> float:
        """Predicted CPU seconds of a solve of this :class:`Cost` (the fixed cost only
        when nothing of its kind was measured)."""
        rate = max(
            self.calibrated.get(_kind(cost), 0.0),
            self.seen.get((cost.method, cost.limited, cost.bones), 0.0),
        )
        return self.base + rate * max(1, cost.work)

    def light(self, cost: Cost) -> bool:
        """Whether a solve of this cost may run on the event loop. A solve sent away
        for what its kind was seen to cost moves that estimate back toward the
        calibration, so a kind is measured again now and then, never kept away for
        good by one slow turn."""
        if cost.work > LIGHT_WORK:
            return False
        if self.predict(cost) <= self.light_seconds:
            return True
        if cost.work <= DRAG_WORK and self.predict_calibrated(cost) <= self.light_seconds:
            return True
        key = (cost.method, cost.limited, cost.bones)
        if key in self.seen:
            self.seen[key] *= 1.0 - self.ALPHA
        return False

    def observe(self, cost: Cost, seconds: float) -> None:
        """Fold in that a solve of ``cost`` took ``seconds`` (CPU); one measurement
        counts as at most twice the light limit."""
        key = (cost.method, cost.limited, cost.bones)
        work = max(1, cost.work)
        rate = min(max(0.0, seconds - self.base), 2.0 * self.light_seconds) / work
        old = self.seen.get(key)
        self.seen[key] = rate if old is None else old + self.ALPHA * (rate - old)

    def calibrate(self, repeats: int = 2) -> None:
        """Time the fixed cost (a two-bone closed-form frame), then, for each method
        with and without joint limits, single solves at the light cap toward a target
        at 0.999 of full reach that no iteration meets, and keep the worst seconds per
        unit of work of each kind."""
        from ikchain.solvers import METHODS
        from ikchain.solvers.methods import reach_work

        def timed(request: dict[str, Any]) -> float | None:
            body = json.dumps({"id": 0, **request})
            spent = []
            for _ in range(repeats + 1):
                started = time.thread_time()
                reply = respond("frame", body)
                spent.append(time.thread_time() - started)
            ok = isinstance(reply, Reply) and reply.status == 200
            return min(spent[1:]) if ok else None

        base = timed({"lengths": [0.8, 0.6], "target": [1.0, 0.5], "method": "analytic"})
        self.base = base or 0.0
        for method in METHODS:
            if method == "analytic":
                continue  # one step: its cost is the fixed cost
            for limited in (False, True):
                worst: float | None = None
                for bones in (2, 4, 8, 31):
                    search = reach_work(bones) if limited else 0
                    iterations = (LIGHT_WORK - search) // bones
                    if iterations < 1:
                        continue
                    request: dict[str, Any] = {
                        "lengths": [1.0 / bones] * bones,
                        "target": [0.999, 0.001],
                        "method": method,
                        "iterations": iterations,
                        "tolerance": 1e-300,
                    }
                    if limited:
                        request["limits"] = [[-2.5, 2.5]] * bones
                    spent = timed(request)
                    if spent is not None:
                        units = bones * iterations + search
                        worst = max(worst or 0.0, max(0.0, spent - self.base) / units)
                if worst is not None:
                    self.calibrated[(method, limited)] = worst


# -- The heavy-request process ---------------------------------------------------------------


def limit_solver_threads() -> None:
    """One thread for a batch (:mod:`ikchain.solvers.threads`), so the heavy-request
    process leaves the other cores to the drags."""
    from ikchain.solvers import threads

    threads.set_threads(1)


def freeze_heap() -> None:
    """Move every object alive after start-up (numba's compiled kernels, the page's
    text: ~130,000 objects) out of the garbage collector's reach: a full collection
    scanned them all, a 60 ms pause of the whole process every few seconds under
    load (a drag's p99), which now scans only what came after."""
    import gc

    gc.collect()
    gc.freeze()


def start_heavy_process(server: int) -> None:
    """Initializer of the heavy-request process: ends with its server (process id
    ``server``), ignores Ctrl+C (the server stops it; a SIGINT of its own would
    otherwise come back to the server as the request's exception), lower priority,
    one solver thread, kernels ready."""
    from ikchain.solvers import compile_kernels

    end_with_parent(server)
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):
        os.nice(HEAVY_NICE)
    limit_solver_threads()
    compile_kernels()
    warm()
    freeze_heap()


def timed_respond(route: str, body: bytes | str) -> tuple[Reply | Heavy, float]:
    """:func:`respond` in the heavy process, with the CPU seconds it took there: a
    connection's share of that process is charged by cost, not by the wall time a
    busy machine (and the process's lower priority) stretched it to."""
    started = time.thread_time()
    reply = respond(route, body)
    return reply, time.thread_time() - started


def heavy_executor(processes: int) -> Executor:
    """The heavy-request processes (spawned, each started by :func:`start_heavy_process`)."""
    return ProcessPoolExecutor(
        processes,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=start_heavy_process,
        initargs=(os.getpid(),),
    )


def _kill(executor: Executor) -> None:
    """Kill ``executor``'s processes (also a stopped one) and let it go."""
    for process in list(getattr(executor, "_processes", {}).values() or []):
        with contextlib.suppress(OSError, AttributeError, ValueError):
            process.kill()
    with contextlib.suppress(Exception):
        executor.shutdown(wait=False, cancel_futures=True)


# -- The scheduler ---------------------------------------------------------------------------


@dataclass(eq=False)
class Job:
    """One request: where it goes, what it says, and the future its reply goes to."""

    route: str
    body: bytes | str
    future: asyncio.Future[Reply]
    request_id: Any = None
    owed: float = 0.0  # CPU seconds its connection spent on it beyond its job (Meter)


@dataclass(eq=False)
class _Running:
    flow: Flow
    job: Job
    started: float
    generation: int
    timer: asyncio.TimerHandle | None = field(default=None)


class Workers:
    """Light requests here, on the event loop; heavy ones in a separate process; both
    in fair order between flows (see the module's docstring).

    ``executor`` makes the heavy-request executor (tests pass a thread pool);
    ``heavy_seconds`` is the watchdog's limit.
    """

    def __init__(
        self,
        heavy_processes: int = HEAVY_PROCESSES,
        *,
        executor: Callable[[int], Executor] = heavy_executor,
        heavy_seconds: float = HEAVY_SECONDS,
        heavy_queue: int = HEAVY_QUEUE,
        heavy_per_flow: int = HEAVY_PER_FLOW,
        costs: CostModel | None = None,
    ) -> None:
        self.heavy_processes = heavy_processes
        self.make_executor = executor
        self.heavy_seconds = heavy_seconds
        self.heavy_queue = heavy_queue
        self.heavy_per_flow = heavy_per_flow
        self.costs = costs or CostModel()
        self.light: FairQueue[Job] = FairQueue()
        self.waiting: FairQueue[Job] = FairQueue()  # heavy jobs not yet handed over
        self.running: dict[Future[Any], _Running] = {}
        self.heavy: Executor | None = None
        self.ready = False
        self.generation = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self._drainer: asyncio.Task[None] | None = None
        self._started: asyncio.Future[None] | None = None
        self._cost: Cost | None = None
        self._ran_this_turn = False  # a light job ran in this turn of the loop
        self.closed = False
        #: While the kernels compile (:meth:`warming_up`): light requests are solved
        #: by plain Python here, heavy ones answered 503 at once, no heavy process.
        self.warming = False

    # -- lifetime

    def warming_up(self) -> None:
        """Serve while the kernels compile: no heavy process yet (it would compile them
        a second time, beside this one), heavy requests refused with a 503 that says
        why, until :meth:`warmed_up`."""
        self.warming = True

    def warmed_up(self) -> None:
        """The compiled kernels are in use: forget what the plain-Python solves cost
        (a hundred times what compiled ones do) and take heavy requests again."""
        self.warming = False
        self.costs.seen.clear()

    def start(self) -> None:
        """Start the heavy process (now, not at the first heavy request)."""
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
        if self.heavy is None and not self.closed and not self.warming:
            self._start_heavy()

    async def started(self) -> None:
        """Wait until the heavy process can take requests (or failed to start once)."""
        self.start()
        if self._started is not None:
            await asyncio.shield(self._started)

    def close(self) -> None:
        self.closed = True
        for running in self.running.values():
            if running.timer is not None:
                running.timer.cancel()
        self.running.clear()
        for job in self.light.drain() + self.waiting.drain():
            if not job.future.done():
                job.future.cancel()
        if self.heavy is not None:
            self.heavy.shutdown(wait=True, cancel_futures=True)
        self.heavy = None
        self.ready = False

    def forget(self, flow: Flow) -> None:
        """``flow``'s connection closed: drop what it still had waiting."""
        for job in self.light.forget(flow) + self.waiting.forget(flow):
            if not job.future.done():
                job.future.cancel()

    # -- requests

    async def respond(
        self, route: str, body: bytes | str, flow: Flow = None, meter: Meter | None = None
    ) -> Reply:
        """The reply to one request of ``route`` from ``flow`` (None: a flow of its own),
        charged with what ``meter`` counted (see :meth:`submit`)."""
        own = flow is None
        flow = object() if own else flow
        try:
            future = self.submit(route, body, flow, meter)
            if future.done():  # answered at once: still let the loop turn, as a queued
                await asyncio.sleep(0)  # one would, so that no caller loops without it
            return await future
        finally:
            if own:
                self.forget(flow)

    def submit(
        self, route: str, body: bytes | str, flow: Flow, meter: Meter | None = None
    ) -> asyncio.Future[Reply]:
        """Take one request of ``route`` from ``flow``; the future of its reply.

        ``flow`` is charged, with the job's own CPU time once it ran,
        :data:`MESSAGE_SECONDS` and what ``meter`` counted since its last message
        (receiving this one, sending the last replies), so that all the work a
        connection causes counts toward its share, not only its solves.
        When no other flow would go first, the request is decoded, checked and (when
        light) solved at once, here, rather than a turn of the loop later: a page's
        frame then takes no more turns of the loop than it must, each of which may
        carry another connection's job. Else it waits in the light queue.
        """
        self.start()
        assert self.loop is not None
        owed = MESSAGE_SECONDS + (meter.take() if meter is not None else 0.0)
        job = Job(route, body, self.loop.create_future(), owed=owed)
        if not self._ran_this_turn and self.light.next_is(flow):
            self.light.serve(flow)
            self._run_light(flow, job)
        else:
            self.light.push(flow, job)
            if self._drainer is None:
                self._drainer = self.loop.create_task(self._drain())
        return job.future

    async def _drain(self) -> None:
        """Run the light queue, fairest first, one job a turn of the loop in all (with
        any that :meth:`submit` ran at once): a turn then holds at most one job besides
        the sockets' reading and writing, so a frame that arrives waits for at most one
        job a turn, not two."""
        try:
            await asyncio.sleep(0)  # let the other messages of this turn queue too
            while self.light:
                if self._ran_this_turn:  # one ran at once this turn (submit): next turn
                    await asyncio.sleep(0)
                    continue
                flow, job = self.light.pop()
                if not job.future.done():
                    self._run_light(flow, job)
                await asyncio.sleep(0)
        finally:
            self._drainer = None

    def _may_run_here(self, cost: Cost) -> bool:
        self._cost = cost
        if self.warming:  # plain Python: a drag's work at most (up to 0.1 s), no more
            return cost.work <= DRAG_WORK
        return self.costs.light(cost)

    def _turn_over(self) -> None:
        self._ran_this_turn = False

    def _run_light(self, flow: Flow, job: Job) -> None:
        if not self._ran_this_turn and self.loop is not None:
            self._ran_this_turn = True  # at most one job a turn at once, the others queue
            self.loop.call_soon(self._turn_over)  # (call_soon: the next turn)
        self._cost = None
        started = time.thread_time()
        try:
            answer = respond(job.route, job.body, max_work=LIGHT_WORK, light=self._may_run_here)
        except Exception:  # a bug: log it, say so, keep serving
            logger.exception("ikchain lesson: a request failed")
            answer = error_reply(
                job.route, "server: internal error (logged)", 500, request_id(job.body)
            )
        spent = time.thread_time() - started
        self.light.charge(flow, spent + job.owed)  # its start was its flow's tag: SFQ
        if isinstance(answer, Heavy):
            job.request_id = answer.request_id
            if self.warming:
                job.future.set_result(warming_reply(job.route, answer))
                return
            self._queue_heavy(flow, job)
            return
        if self._cost is not None:
            self.costs.observe(self._cost, spent)
        job.future.set_result(answer)

    # -- heavy requests

    def _answer(self, job: Job, message: str, status: int) -> None:
        if not job.future.done():
            job.future.set_result(error_reply(job.route, message, status, job.request_id))

    def _queue_heavy(self, flow: Flow, job: Job) -> None:
        own = self.waiting.count(flow)
        if own >= self.heavy_per_flow:
            self._answer(
                job,
                f"server: {own} heavy requests of this connection are waiting; expected at "
                f"most {self.heavy_per_flow} at once, wait for their answers",
                429,
            )
            return
        if len(self.waiting) >= self.heavy_queue:
            busiest = self.waiting.busiest()
            if busiest is None or self.waiting.count(busiest) <= own + 1:
                self._answer(
                    job,
                    f"server: busy with {len(self.waiting)} heavy requests; expected fewer at "
                    "once, try again shortly or ask for less work",
                    429,
                )
                return
            evicted = self.waiting.take_newest(busiest)
            if evicted is not None:
                self._answer(
                    evicted,
                    "server: busy with heavy requests of other connections; this connection "
                    "has the most waiting, try again shortly",
                    429,
                )
        self.waiting.push(flow, job)
        self._dispatch()

    def _start_heavy(self) -> None:
        assert self.loop is not None
        self.generation += 1
        generation = self.generation
        self.ready = False
        self.heavy = self.make_executor(self.heavy_processes)
        if self._started is None or self._started.done():
            self._started = self.loop.create_future()
        started = self._started
        loop = self.loop

        def on_ready(future: Future[Any]) -> None:
            loop.call_soon_threadsafe(self._heavy_ready, generation, future, started)

        self.heavy.submit(int).add_done_callback(on_ready)

    def _heavy_ready(
        self, generation: int, future: Future[Any], started: asyncio.Future[None]
    ) -> None:
        if not started.done():
            started.set_result(None)
        if generation != self.generation or self.closed:
            return
        if future.cancelled() or future.exception() is not None:
            logger.error(
                "ikchain lesson: the heavy-request process did not start; trying again in %g s",
                RESTART_DELAY_SECONDS,
            )
            self._fail_heavy("server: the solver process did not start; try again shortly")
            assert self.loop is not None
            self.loop.call_later(RESTART_DELAY_SECONDS, self._retry_start, generation)
            return
        self.ready = True
        self._dispatch()
        self._watch(generation)

    def _watch(self, generation: int) -> None:
        """Every :data:`WATCH_SECONDS`, notice a heavy process that died while idle."""
        if generation != self.generation or self.closed or self.loop is None:
            return
        if getattr(self.heavy, "_broken", False):
            self._restart("the heavy-request process died")
            return
        self.loop.call_later(WATCH_SECONDS, self._watch, generation)

    def _retry_start(self, generation: int) -> None:
        if generation == self.generation and not self.closed:
            self._start_heavy()

    def _dispatch(self) -> None:
        """Hand waiting heavy jobs to free processes, fairest first."""
        assert self.loop is not None
        while self.ready and self.waiting and len(self.running) < self.heavy_processes:
            flow, job = self.waiting.pop()
            if job.future.done():
                continue
            assert self.heavy is not None
            try:
                future = self.heavy.submit(timed_respond, job.route, job.body)
            except (BrokenProcessPool, RuntimeError):  # it died while idle
                self.waiting.push(flow, job)
                self._restart("the heavy-request process died")
                return
            running = _Running(flow, job, time.monotonic(), self.generation)
            running.timer = self.loop.call_later(self.heavy_seconds, self._overdue, future)
            self.running[future] = running
            future.add_done_callback(self._finished_threadsafe)

    def _finished_threadsafe(self, future: Future[Any]) -> None:
        if self.loop is not None and not self.loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                self.loop.call_soon_threadsafe(self._finished, future)

    def _finished(self, future: Future[Any]) -> None:
        running = self.running.pop(future, None)
        if running is None:  # answered already (overdue, or its process restarted)
            return
        if running.timer is not None:
            running.timer.cancel()
        job = running.job
        spent = time.monotonic() - running.started
        try:
            reply, cpu = future.result()
            spent = min(spent, cpu)  # what it cost, not how long a busy machine took
        except BrokenProcessPool:
            self.running[future] = running  # answered with the others by _restart
            self._restart("the heavy-request process died")
            return
        except BaseException as error:  # whatever came back (KeyboardInterrupt...): logged
            logger.error(
                "ikchain lesson: a heavy request failed: %s: %s", type(error).__name__, error
            )
            reply = error_reply(job.route, "server: internal error (logged)", 500, job.request_id)
        self.waiting.charge(running.flow, spent)
        if not isinstance(reply, Reply):
            reply = error_reply(job.route, "server: internal error (logged)", 500, job.request_id)
        if not job.future.done():
            job.future.set_result(reply)
        self._dispatch()

    def _overdue(self, future: Future[Any]) -> None:
        running = self.running.get(future)
        if running is None:
            return
        self._answer(
            running.job,
            f"server: the request took longer than {self.heavy_seconds:g} s and was stopped; "
            "ask for less work",
            503,
        )
        self._restart(
            f"a heavy request took longer than {self.heavy_seconds:g} s: stopped the "
            "heavy-request process"
        )

    def _fail_heavy(self, message: str) -> None:
        """Answer 503 to every heavy job running or waiting."""
        for running in self.running.values():
            if running.timer is not None:
                running.timer.cancel()
            self._answer(running.job, message, 503)
        self.running.clear()
        for job in self.waiting.drain():
            self._answer(job, message, 503)

    def _restart(self, why: str) -> None:
        """Kill the heavy process(es), answer 503 to the requests they held, start new
        ones (the requests still waiting go to those): one log line."""
        if self.closed:
            return
        logger.error("ikchain lesson: %s; starting a new one", why)
        for running in self.running.values():
            if running.timer is not None:
                running.timer.cancel()
            self._answer(running.job, "server: the solver process restarted; try again", 503)
        self.running.clear()
        old, self.heavy = self.heavy, None
        if old is not None:
            _kill(old)
        self._start_heavy()
