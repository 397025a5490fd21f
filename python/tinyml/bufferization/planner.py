"""Static memory planning: every intermediate buffer gets an offset in one
arena, so that no two buffers that are live at the same time overlap.

This module is pure Python and knows nothing about MLIR; the
`tinyml-plan-memory` pass (`tinyml.bufferization.plan_memory`) extracts the buffers
from bufferized IR and rewrites the allocations with the offsets found here.

Model
-----
A `Buffer(name, size, first, last)` is `size` bytes that must hold their
contents from step `first` to step `last`, both inclusive (steps are the
positions of ops in execution order). Two buffers *live together* when their
intervals intersect; such buffers must get disjoint byte ranges, except for
an *in-place pair* `(a, b)`: the op at step `a.last == b.first` reads `a` and
writes `b` element by element with the same indexing, so `b` may take exactly
`a`'s offset (never a partly overlapping one).

Every offset is a multiple of `alignment` and every buffer takes
`align_up(size, alignment)` bytes of the arena, so the arena size is a
multiple of the alignment too (TFLM does the same with 16 bytes).

Planners
--------
- `plan_greedy_by_size`: TensorFlow Lite Micro's `GreedyMemoryPlanner`:
  buffers sorted by size, largest first (stable: ties keep their order), each
  placed at the lowest offset that fits between the buffers already placed
  that live at the same time ("first fit").
- `plan_best`: tries several orders (size, lifetime length, first use, area,
  breadth = the live bytes around the buffer, conflicts) times two gap
  choices (first fit, best fit = the smallest gap that fits), with and
  without merging in-place chains into one slot, then improves the best one
  by a bounded, seeded local search over the order. It includes TFLM's
  order and gap choice, so it is never worse than `plan_greedy_by_size`.

Bounds and checks
-----------------
- `lower_bound`: the largest number of bytes live at one step (in-place
  pairs counted once at the step where they meet); no plan can be smaller.
- `naive`: the sum of all buffers (one buffer each, no reuse).
- `verify_plan`: raises `PlanError` when two buffers that live together
  overlap (other than an allowed in-place pair at the same offset), a buffer
  leaves the arena or an offset is misaligned.

`make_plan` runs all of these and returns a `MemoryPlan` with the report,
the timeline (`timeline.timeline`, JSON) and a picture of it
(`timeline.timeline_svg`, in timeline.py).
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from .timeline import timeline, timeline_svg

DEFAULT_ALIGNMENT = 16


class PlanError(ValueError):
    """A plan is wrong (overlap, out of the arena) or the input is invalid."""


@dataclass(frozen=True)
class Buffer:
    """`size` bytes live from step `first` to step `last`, inclusive."""

    name: str
    size: int
    first: int
    last: int

    def __post_init__(self):
        if self.size < 0:
            raise PlanError(f"buffer '{self.name}' has a negative size {self.size}")
        if self.first > self.last:
            raise PlanError(f"buffer '{self.name}' has first {self.first} > last {self.last}")

    def lives_with(self, other: "Buffer") -> bool:
        return self.first <= other.last and other.first <= self.last


@dataclass(frozen=True)
class Placement:
    """The result of a planner: an offset per buffer name and the arena size.
    `inplace_pairs` are the pairs the placement relies on (same offset)."""

    offsets: dict[str, int]
    arena_size: int
    algorithm: str = ""
    inplace_pairs: tuple[tuple[str, str], ...] = ()


def align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def _check_alignment(alignment: int) -> None:
    if not isinstance(alignment, int) or alignment < 1 or alignment & (alignment - 1):
        raise PlanError(f"alignment must be a power of two, got {alignment!r}")


def _check_buffers(buffers: Sequence[Buffer]) -> None:
    names = set()
    for buffer in buffers:
        if buffer.name in names:
            raise PlanError(f"two buffers are named '{buffer.name}'")
        names.add(buffer.name)


def normalize_pairs(buffers: Sequence[Buffer],
                    pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The in-place pairs `(a, b)` that are usable: both buffers exist,
    `a.last == b.first`, `b` fits in `a`'s bytes, and every buffer is the
    source of one pair at most and the target of one pair at most (first
    pair wins)."""
    by_name = {b.name: b for b in buffers}
    sources: set[str] = set()
    targets: set[str] = set()
    kept: list[tuple[str, str]] = []
    for a, b in pairs:
        if a == b or a not in by_name or b not in by_name or a in sources or b in targets:
            continue
        ba, bb = by_name[a], by_name[b]
        if ba.last != bb.first or bb.size > ba.size:
            continue
        # Chains share one slot: a one-step buffer in the middle of a chain
        # would put its two neighbours (live at the same step) on the same
        # bytes.
        if (ba.first == ba.last and a in targets) or (bb.first == bb.last and b in sources):
            continue
        # A cycle a -> b -> ... -> a cannot happen: first < last along a chain
        # unless every buffer lives one step; refuse the pair that closes one.
        root: str | None = a
        seen = {b}
        while root is not None and root not in seen:
            seen.add(root)
            root = next((x for x, y in kept if y == root), None)
        if root is not None:
            continue
        sources.add(a)
        targets.add(b)
        kept.append((a, b))
    return kept


def _pair_allowed(pairs: Iterable[tuple[str, str]]) -> set[frozenset[str]]:
    return {frozenset(pair) for pair in pairs}


# ---------------------------------------------------------------------------
# Bounds
# ---------------------------------------------------------------------------

def live_profile(buffers: Sequence[Buffer], alignment: int = 1,
                 inplace_pairs: Iterable[tuple[str, str]] = ()) -> dict[int, int]:
    """Step -> bytes that must be live at that step (sizes aligned up,
    in-place pairs counted once where they meet)."""
    _check_alignment(alignment)
    delta: dict[int, int] = {}
    for buffer in buffers:
        size = align_up(buffer.size, alignment)
        delta[buffer.first] = delta.get(buffer.first, 0) + size
        delta[buffer.last + 1] = delta.get(buffer.last + 1, 0) - size
    by_name = {b.name: b for b in buffers}
    for a, b in normalize_pairs(buffers, inplace_pairs):
        step = by_name[a].last
        shared = min(align_up(by_name[a].size, alignment), align_up(by_name[b].size, alignment))
        delta[step] = delta.get(step, 0) - shared
        delta[step + 1] = delta.get(step + 1, 0) + shared
    profile: dict[int, int] = {}
    live = 0
    if not buffers:
        return profile
    for step in range(min(b.first for b in buffers), max(b.last for b in buffers) + 1):
        live += delta.get(step, 0)
        profile[step] = live
    return profile


def lower_bound(buffers: Sequence[Buffer], alignment: int = 1,
                inplace_pairs: Iterable[tuple[str, str]] = ()) -> int:
    """Max over steps of the bytes that must be live: no plan is smaller."""
    return max(live_profile(buffers, alignment, inplace_pairs).values(), default=0)


def naive(buffers: Sequence[Buffer], alignment: int = 1) -> int:
    """Every buffer in its own bytes: the sum of all (aligned) sizes."""
    _check_alignment(alignment)
    return sum(align_up(b.size, alignment) for b in buffers)


# ---------------------------------------------------------------------------
# Placement engine
# ---------------------------------------------------------------------------

@dataclass
class _Unit:
    """What the engine places: one buffer, or an in-place chain sharing one
    slot over the union of its members' lifetimes."""

    index: int
    members: list[int]
    size: int
    first: int
    last: int


def _make_units(buffers: Sequence[Buffer], alignment: int,
                pairs: Sequence[tuple[str, str]], merge: bool) -> list[_Unit]:
    index = {b.name: i for i, b in enumerate(buffers)}
    parent = list(range(len(buffers)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    if merge:
        for a, b in pairs:
            parent[find(index[b])] = find(index[a])
    groups: dict[int, list[int]] = {}
    for i in range(len(buffers)):
        groups.setdefault(find(i), []).append(i)
    units: list[_Unit] = []
    for members in sorted(groups.values()):
        units.append(_Unit(len(units), members,
                           max(align_up(buffers[i].size, alignment) for i in members),
                           min(buffers[i].first for i in members),
                           max(buffers[i].last for i in members)))
    return units


def _conflicts(units: Sequence[_Unit]) -> list[list[int]]:
    """For each unit, the units living at the same time (sweep by first)."""
    adjacency: list[list[int]] = [[] for _ in units]
    order = sorted(range(len(units)), key=lambda i: units[i].first)
    active: list[int] = []
    for i in order:
        u = units[i]
        if u.size == 0:
            continue
        active = [j for j in active if units[j].last >= u.first]
        for j in active:
            adjacency[i].append(j)
            adjacency[j].append(i)
        active.append(i)
    return adjacency


def _place(units: Sequence[_Unit], adjacency: Sequence[Sequence[int]], order: Sequence[int],
           fit: str) -> tuple[list[int], int]:
    """Places the units in `order`; each goes into a gap between the placed
    units it lives with (`first`: the lowest gap that fits, as TFLM;
    `best`: the smallest gap that fits), else above all of them."""
    offsets = [-1] * len(units)
    top = 0
    for i in order:
        size = units[i].size
        if size == 0:
            offsets[i] = 0
            continue
        taken = sorted((offsets[j], offsets[j] + units[j].size)
                       for j in adjacency[i] if offsets[j] >= 0)
        candidate, chosen, chosen_gap = 0, None, None
        for start, end in taken:
            gap = start - candidate
            if gap >= size:
                if fit == "first":
                    chosen = candidate
                    break
                if chosen_gap is None or gap < chosen_gap:
                    chosen, chosen_gap = candidate, gap
            candidate = max(candidate, end)
        if chosen is None:
            chosen = candidate
        offsets[i] = chosen
        top = max(top, chosen + size)
    return offsets, top


def _orders(units: Sequence[_Unit]) -> dict[str, list[int]]:
    """The orders the best planner tries (all stable on the buffer order)."""
    indices = range(len(units))
    delta: dict[int, int] = {}
    for u in units:
        delta[u.first] = delta.get(u.first, 0) + u.size
        delta[u.last + 1] = delta.get(u.last + 1, 0) - u.size
    live, running = {}, 0
    for step in sorted(delta):
        running += delta[step]
        live[step] = running
    steps = sorted(live)

    def breadth(u: _Unit) -> int:
        # Live bytes can only change where some interval starts.
        return max(live[s] for s in steps if u.first <= s <= u.last) if u.size else 0

    breadths = [breadth(u) for u in units]
    adjacency = _conflicts(units)
    pressure = [sum(units[j].size for j in adjacency[i]) + units[i].size for i in indices]
    return {
        "size": sorted(indices, key=lambda i: -units[i].size),
        "size-then-first": sorted(indices, key=lambda i: (-units[i].size, units[i].first)),
        "length": sorted(indices, key=lambda i: (units[i].first - units[i].last, -units[i].size)),
        "first-use": sorted(indices, key=lambda i: (units[i].first, -units[i].size)),
        "area": sorted(indices, key=lambda i: (
            -units[i].size * (units[i].last - units[i].first + 1), -units[i].size)),
        "breadth": sorted(indices, key=lambda i: (-breadths[i], -units[i].size, units[i].first)),
        "conflicts": sorted(indices, key=lambda i: (-pressure[i], -units[i].size)),
    }


def _placement(buffers: Sequence[Buffer], units: Sequence[_Unit], unit_offsets: Sequence[int],
               top: int, algorithm: str, pairs: Sequence[tuple[str, str]]) -> Placement:
    offsets = {}
    for unit, offset in zip(units, unit_offsets):
        for i in unit.members:
            offsets[buffers[i].name] = offset
    by_name = {b.name: b for b in buffers}
    used = tuple((a, b) for a, b in pairs
                 if offsets[a] == offsets[b] and by_name[a].size and by_name[b].size)
    return Placement(offsets, top, algorithm, used)


def plan_greedy_by_size(buffers: Sequence[Buffer], alignment: int = DEFAULT_ALIGNMENT) -> Placement:
    """TensorFlow Lite Micro's greedy-by-size planner (first fit, largest
    buffer first, ties in the given order)."""
    _check_alignment(alignment)
    _check_buffers(buffers)
    units = _make_units(buffers, alignment, (), merge=False)
    order = sorted(range(len(units)), key=lambda i: -units[i].size)
    offsets, top = _place(units, _conflicts(units), order, "first")
    return _placement(buffers, units, offsets, top, "greedy-by-size", ())


def plan_best(buffers: Sequence[Buffer], alignment: int = DEFAULT_ALIGNMENT,
              inplace_pairs: Iterable[tuple[str, str]] = (), search_steps: int | None = None,
              seed: int = 0) -> Placement:
    """The smallest arena found over several orders and gap choices, with
    and without in-place chains, then a local search over the order of the
    winner (`search_steps` placements at most; default scales with the
    number of buffers). Never larger than `plan_greedy_by_size`."""
    _check_alignment(alignment)
    _check_buffers(buffers)
    pairs = normalize_pairs(buffers, inplace_pairs)
    bound = lower_bound(buffers, alignment, pairs)
    best: tuple[int, str, list[_Unit], list[list[int]], list[int], list[int], str] | None = None
    for merge in ([False, True] if pairs else [False]):
        units = _make_units(buffers, alignment, pairs, merge)
        adjacency = _conflicts(units)
        for order_name, order in _orders(units).items():
            for fit in ("first", "best"):
                offsets, top = _place(units, adjacency, order, fit)
                name = f"{order_name}/{fit}-fit" + ("/in-place" if merge else "")
                if best is None or top < best[0]:
                    best = (top, name, units, adjacency, offsets, order, fit)
                if best[0] <= bound:
                    break
            if best is not None and best[0] <= bound:
                break
        if best is not None and best[0] <= bound:
            break
    assert best is not None or not buffers
    if best is None:
        return Placement({}, 0, "empty")
    top, name, units, adjacency, offsets, order, fit = best
    if top > bound and len(units) > 2:
        steps = search_steps if search_steps is not None else \
            max(64, min(2000, 400_000 // max(1, sum(len(a) for a in adjacency) + len(units))))
        found = _local_search(units, adjacency, order, fit, top, bound, steps, seed)
        if found is not None:
            offsets, top, order = found
            name += "+search"
    return _placement(buffers, units, offsets, top, name, pairs)


def _local_search(units, adjacency, order, fit, top, bound, steps, seed):
    """Moves one unit earlier in the order, preferring the units at the top
    of the arena; keeps a change when the arena does not grow."""
    rng = random.Random(seed)
    current = list(order)
    current_offsets, current_top = _place(units, adjacency, current, fit)
    best = None
    n = len(current)
    for _ in range(steps):
        tops = [i for i in range(n)
                if units[i].size and current_offsets[i] + units[i].size == current_top]
        candidate = list(current)
        if tops and rng.random() < 0.6:
            unit = rng.choice(tops)
            where = candidate.index(unit)
            if where == 0:
                continue
            candidate.pop(where)
            candidate.insert(rng.randrange(where), unit)
        else:
            i, j = rng.randrange(n), rng.randrange(n)
            candidate[i], candidate[j] = candidate[j], candidate[i]
        new_offsets, new_top = _place(units, adjacency, candidate, fit)
        if new_top <= current_top:
            current, current_offsets, current_top = candidate, new_offsets, new_top
            if best is None or new_top < best[1]:
                best = (new_offsets, new_top, list(candidate))
                if new_top <= bound:
                    break
    if best is not None and best[1] < top:
        return best
    return None


# ---------------------------------------------------------------------------
# Verification
# ---------------------------------------------------------------------------

def verify_plan(buffers: Sequence[Buffer], offsets: Mapping[str, int], arena_size: int,
                inplace_pairs: Iterable[tuple[str, str]] = (), alignment: int = 1) -> None:
    """Raises `PlanError` unless every buffer is inside the arena at an
    aligned offset and no two buffers that live together share a byte,
    except an in-place pair `(a, b)` at the same offset with
    `a.last == b.first`."""
    _check_buffers(buffers)
    _check_alignment(alignment)
    allowed = _pair_allowed(normalize_pairs(buffers, inplace_pairs))
    for b in buffers:
        if b.name not in offsets:
            raise PlanError(f"buffer '{b.name}' has no offset")
        offset = offsets[b.name]
        if not isinstance(offset, int) or offset < 0:
            raise PlanError(f"buffer '{b.name}' has an invalid offset {offset!r}")
        if offset % alignment:
            raise PlanError(f"buffer '{b.name}' at offset {offset} is not {alignment}-byte aligned")
        if offset + b.size > arena_size:
            raise PlanError(f"buffer '{b.name}' [{offset}, {offset + b.size}) leaves the arena "
                            f"of {arena_size} bytes")
    by_first = sorted((b for b in buffers if b.size), key=lambda b: b.first)
    active: list[Buffer] = []
    for b in by_first:
        active = [a for a in active if a.last >= b.first]
        for a in active:
            oa, ob = offsets[a.name], offsets[b.name]
            if oa < ob + b.size and ob < oa + a.size:
                if frozenset((a.name, b.name)) in allowed and oa == ob:
                    continue
                raise PlanError(
                    f"buffers '{a.name}' [{oa}, {oa + a.size}) live {a.first}..{a.last} and "
                    f"'{b.name}' [{ob}, {ob + b.size}) live {b.first}..{b.last} overlap")
        active.append(b)


# ---------------------------------------------------------------------------
# The whole plan
# ---------------------------------------------------------------------------

ALGORITHMS = ("best", "greedy-by-size")


@dataclass
class MemoryPlan:
    """One planned function: buffers, offsets, the arena and the numbers to
    compare it with."""

    function: str
    buffers: list[Buffer]
    offsets: dict[str, int]
    arena_bytes: int
    alignment: int
    algorithm: str
    heuristic: str
    inplace_pairs: tuple[tuple[str, str], ...]
    greedy_arena_bytes: int
    naive_bytes: int
    lower_bound_bytes: int
    peak_step: int | None
    op_names: list[str] | None = None
    details: dict = field(default_factory=dict)

    @property
    def peak_op(self) -> str | None:
        if self.peak_step is None or self.op_names is None or self.peak_step >= len(self.op_names):
            return None
        return self.op_names[self.peak_step]

    def report(self) -> dict:
        return {
            "function": self.function,
            "algorithm": self.algorithm,
            "heuristic": self.heuristic,
            "alignment": self.alignment,
            "arena_bytes": self.arena_bytes,
            "greedy_arena_bytes": self.greedy_arena_bytes,
            "naive_bytes": self.naive_bytes,
            "lower_bound_bytes": self.lower_bound_bytes,
            "peak_step": self.peak_step,
            "peak_op": self.peak_op,
            "inplace_pairs": [list(pair) for pair in self.inplace_pairs],
            "buffers": [{"name": b.name, "size": b.size, "first": b.first, "last": b.last,
                         "offset": self.offsets[b.name], **self.details.get(b.name, {})}
                        for b in self.buffers],
        }

    def timeline(self) -> dict:
        data = timeline(self.buffers, self.offsets, self.op_names, self.arena_bytes)
        data.update({k: v for k, v in self.report().items() if k != "buffers"})
        return data

    def timeline_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.timeline(), indent=indent)

    def timeline_svg(self, extra: Sequence[str] = ()) -> str:
        """The picture of the plan, with the lines `extra` below its notes."""
        notes = [f"{self.algorithm} ({self.heuristic}): {self.arena_bytes} B; "
                 f"TFLM greedy-by-size {self.greedy_arena_bytes} B; naive {self.naive_bytes} B; "
                 f"lower bound {self.lower_bound_bytes} B; alignment {self.alignment}"]
        if self.inplace_pairs:
            notes.append("in place: " + ", ".join(f"{a}->{b}" for a, b in self.inplace_pairs))
        notes.extend(extra)
        return timeline_svg(self.buffers, self.offsets, self.op_names, self.arena_bytes,
                            title=f"memory plan of @{self.function}" if self.function else "",
                            notes=notes)


def make_plan(buffers: Sequence[Buffer], alignment: int = DEFAULT_ALIGNMENT,
              algorithm: str = "best", inplace_pairs: Iterable[tuple[str, str]] = (),
              op_names: Sequence[str] | None = None, function: str = "",
              details: Mapping[str, dict] | None = None,
              planner: Callable[..., Placement] | None = None) -> MemoryPlan:
    """Plans, verifies and measures: the arena of `algorithm`, TFLM's
    greedy-by-size arena, the naive sum and the lower bound."""
    if algorithm not in ALGORITHMS:
        raise PlanError(f"unknown algorithm '{algorithm}' (expected {', '.join(ALGORITHMS)})")
    buffers = list(buffers)
    pairs = normalize_pairs(buffers, inplace_pairs)
    greedy = plan_greedy_by_size(buffers, alignment)
    verify_plan(buffers, greedy.offsets, greedy.arena_size, (), alignment)
    if planner is not None:
        chosen = planner(buffers, alignment, pairs)
    elif algorithm == "greedy-by-size":
        chosen = greedy
    else:
        chosen = plan_best(buffers, alignment, pairs)
    verify_plan(buffers, chosen.offsets, chosen.arena_size, chosen.inplace_pairs, alignment)
    used_pairs = chosen.inplace_pairs
    profile = live_profile(buffers, alignment, pairs if algorithm == "best" else ())
    peak_step = max(profile, key=lambda s: (profile[s], -s)) if profile else None
    return MemoryPlan(
        function=function, buffers=buffers, offsets=dict(chosen.offsets),
        arena_bytes=chosen.arena_size, alignment=alignment, algorithm=algorithm,
        heuristic=chosen.algorithm, inplace_pairs=tuple(used_pairs),
        greedy_arena_bytes=greedy.arena_size, naive_bytes=naive(buffers, alignment),
        lower_bound_bytes=max(profile.values(), default=0), peak_step=peak_step,
        op_names=list(op_names) if op_names is not None else None,
        details=dict(details or {}))
