"""Which memory plan a compile keeps.

A memory plan (`pipeline.stages.MEMORY_PLANS`) is a set of the schedule
stage's transformations that lower the arena: layers computed over their
input, in row bands or row by row into a line buffer inside their
consumer's loop. Each costs code (a loop per segment, a body per loop) and
a few instructions, so no plan is best for every user: a compile builds
the plans that transform the model differently (one that changes nothing
over a smaller one is not built again), and keeps

- with an SRAM budget, the plan with the least code whose arena fits
  (among equals, the one with fewer transformations: fewer instructions);
- with a flash budget alone, the plan with the least arena whose flash fits;
- with neither, the plan with the least arena whose code is at most
  `CODE_GROWTH` times the plan "none"'s (a host target has no code size:
  the plan with every transformation, alone).

The report lists every plan built (arena, code) and the one kept, so a
user sees the trade-off and can ask for another (`memory_plan=`,
`--memory-plan`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import CompileError
from .pipeline.stages import MEMORY_PLANS
from .report import Flash, MemoryPlanEntry
from .targets import Target

#: How much more code than the plan "none" a compile takes, unasked, for
#: a smaller arena.
CODE_GROWTH = 1.15


def candidate_plans(memory_plan: str | None, spec: Target, sram_budget: int | None,
                    flash_budget: int | None) -> list[str]:
    """The plans a compile builds: `memory_plan` alone, or every plan; on
    the host, which has no code size to weigh, the plan with every
    transformation alone unless an SRAM budget asks for less."""
    if flash_budget is not None and spec.is_host:
        raise CompileError("a flash budget needs a Cortex-M target: the host has no flash")
    if memory_plan is not None and memory_plan not in MEMORY_PLANS:
        raise CompileError(f"unknown memory plan '{memory_plan}' "
                           f"(known: {', '.join(MEMORY_PLANS)})")
    if memory_plan is not None:
        return [memory_plan]
    if spec.is_host and sram_budget is None:
        return [list(MEMORY_PLANS)[-1]]
    return list(MEMORY_PLANS)


@dataclass
class Candidate:
    """One plan's compile: the IR after each stage (when kept), what the
    stages measured, and, once built, its arena, flash and artefacts."""

    plan: str
    stages: dict[str, str] = field(default_factory=dict)
    measured: dict[str, Any] = field(default_factory=dict)
    stage_seconds: dict[str, float] = field(default_factory=dict)
    arena_bytes: int = 0
    peak_op: str | None = None
    flash: Flash | None = None
    artefacts: dict[str, str | bytes] = field(default_factory=dict)
    module: Any = None  # the host's artefact: the module the JIT runs
    buffers: Any = None  # the planner's MemoryPlan of the arena, for its picture

    def branch(self, plan: str) -> "Candidate":
        """`plan`'s compile, from what this one did so far."""
        return Candidate(plan, dict(self.stages), dict(self.measured), dict(self.stage_seconds))

    @property
    def built(self) -> bool:
        return bool(self.artefacts)

    @property
    def flash_bytes(self) -> int | None:
        """What the object puts in flash: code, read-only and initialised data."""
        return None if self.flash is None else (
            self.flash.text + self.flash.rodata + self.flash.data)

    def entry(self, chosen: bool) -> MemoryPlanEntry:
        return MemoryPlanEntry(self.plan, self.arena_bytes,
                               None if self.flash is None else self.flash.text,
                               self.flash_bytes, chosen)


def choose(candidates: list[Candidate], sram_budget: int | None,
           flash_budget: int | None) -> Candidate:
    """The plan a compile keeps (see the module's docstring); a
    `CompileError` when no plan fits the budgets."""
    fitting = [c for c in candidates if c.built and _fits(c, flash_budget)]
    if not fitting:
        raise CompileError(_none_fits(candidates, sram_budget, flash_budget))
    order = {plan: i for i, plan in enumerate(MEMORY_PLANS)}
    if sram_budget is not None:
        return min(fitting, key=lambda c: (c.flash.text if c.flash else 0, order[c.plan]))
    baseline = candidates[0].flash  # the first plan built: "none" when there is a choice
    if flash_budget is None and baseline is not None:
        fitting = [c for c in fitting
                   if c.flash is not None and c.flash.text <= CODE_GROWTH * baseline.text]
    return min(fitting, key=lambda c: (c.arena_bytes, order[c.plan]))


def picture(chosen: Candidate, built: list[Candidate]) -> str:
    """memory.svg: the kept plan's arena over time, and a line per plan
    built with its arena and code, so the trade-off is in the picture."""
    lines = [f"memory plan {c.plan}: arena {c.arena_bytes:,} B"
             + ("" if c.flash is None else f", code {c.flash.text:,} B")
             + (" (kept)" if c is chosen else "") for c in built]
    return chosen.buffers.timeline_svg(lines if len(built) > 1 else [])


def fits(candidate: Candidate, sram_budget: int | None, flash_budget: int | None) -> bool:
    """Whether a plan was built and meets both budgets."""
    return candidate.built and _fits(candidate, flash_budget) \
        and (sram_budget is None or candidate.arena_bytes <= sram_budget)


def _fits(candidate: Candidate, flash_budget: int | None) -> bool:
    flash = candidate.flash_bytes
    return flash_budget is None or (flash is not None and flash <= flash_budget)


def _none_fits(candidates: list[Candidate], sram_budget: int | None,
               flash_budget: int | None) -> str:
    smallest = min(candidates, key=lambda c: c.arena_bytes)
    if sram_budget is not None and smallest.arena_bytes > sram_budget:
        return (f"the arena needs {smallest.arena_bytes} bytes, "
                f"{smallest.arena_bytes - sram_budget} over the SRAM budget of {sram_budget}; "
                f"the peak is at {smallest.peak_op or 'an unknown op'} (memory plan "
                f"'{smallest.plan}', the least arena of the plans built)")
    built = [c for c in candidates if c.built]
    least = min(built, key=lambda c: c.flash_bytes or 0)
    over = "" if sram_budget is None else f" with an arena within {sram_budget} bytes"
    return (f"no memory plan{over} fits the flash budget of {flash_budget} bytes: the "
            f"least flash is {least.flash_bytes} bytes (memory plan '{least.plan}'), "
            f"{(least.flash_bytes or 0) - (flash_budget or 0)} over")
