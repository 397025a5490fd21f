"""tinyml-hoist-branch-allocs: a static allocation inside an `scf.if` moves
to the function's body, before the op holding it.

Upstream's buffer-loop-hoisting takes a static allocation out of a loop,
not out of a branch, and tinyml-plan-memory refuses one inside any region.
tinyml-fuse-line-buffer computes its groups in branches (a step computes
a row of the producer or stores a padding row; it computes a row of the
consumer once the buffer holds its window), and their tiles stage their
windows in buffers allocated there. A static buffer takes the same arena
bytes whether or not the branch runs, and it is allocated once, not per
iteration, out of the loops around the branch too (runs after
buffer-loop-hoisting, which leaves those in the branch). An allocation of
dynamic size stays where it is.
"""
from __future__ import annotations

from ..ir.walk import ops_named
from ..pipeline.registry import Pass, register


@register
class HoistBranchAllocs(Pass):
    name = "tinyml-hoist-branch-allocs"
    summary = "Move static allocations out of scf.if regions"

    def apply(self, module):
        for alloc in ops_named(module, "memref.alloc"):
            if len(alloc.operands):
                continue
            holders = []
            holder = alloc.parent
            while holder is not None and holder.name != "func.func":
                holders.append(holder)
                holder = holder.parent
            if any(holder.name == "scf.if" for holder in holders):
                alloc.move_before(holders[-1])
