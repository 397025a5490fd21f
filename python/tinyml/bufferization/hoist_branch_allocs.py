"""tinyml-hoist-branch-allocs: a static allocation inside an `scf.if` moves
to the function's body, before the op holding it; the allocations of
sibling branches share their bytes.

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

An allocation used only inside its outermost `scf.if` holds nothing from
one run of that branch to the next (it was allocated afresh in each), and
nothing while another branch runs: the buffers confined to different
branches of one top-level op are never live together. They become views
(`memref.view`) of one byte buffer as large as the largest branch's
buffers, each branch's laid out one after another from offset 0
(`ALIGNMENT`-aligned), so the arena holds the layers' staging windows of
a line buffer's step once, not side by side.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref

from ..ir.values import element_bytes
from ..ir.walk import is_inside, is_terminator, ops_named
from ..pipeline.registry import Pass, register

#: The alignment of each shared view's offset: any element type's, and a
#: word's for the copies by words.
ALIGNMENT = 8
#: An allocation and its bytes.
Sized = tuple[ir.Operation, int]


@register
class HoistBranchAllocs(Pass):
    name = "tinyml-hoist-branch-allocs"
    summary = ("Move static allocations out of scf.if regions, those of sibling branches "
               "sharing their bytes")

    def apply(self, module):
        # Per top-level op, the allocations confined to each of its
        # branches, with their bytes.
        branches: dict[ir.Operation, dict[ir.Operation, list[Sized]]] = {}
        for alloc in ops_named(module, "memref.alloc"):
            if len(alloc.operands):
                continue
            holders = []
            holder = alloc.parent
            while holder is not None and holder.name != "func.func":
                holders.append(holder)
                holder = holder.parent
            ifs = [holder for holder in holders if holder.name == "scf.if"]
            if not ifs:
                continue
            top, branch = holders[-1], ifs[-1]
            size = byte_size(alloc)
            if size is None or not confined(alloc, branch):
                alloc.move_before(top)
                continue
            branches.setdefault(top, {}).setdefault(branch, []).append((alloc, size))
        for top, by_branch in branches.items():
            share(top, list(by_branch.values()))


def byte_size(alloc: ir.Operation) -> int | None:
    """The bytes of an identity-layout, static allocation, else None."""
    memref_type = ir.MemRefType(alloc.results[0].type)
    size = element_bytes(memref_type.element_type)
    identity = ir.AffineMapAttr.get(ir.AffineMap.get_identity(memref_type.rank))
    if size is None or memref_type.layout != identity or memref_type.memory_space is not None:
        return None
    for extent in memref_type.shape:
        size *= extent
    return size


def confined(alloc: ir.Operation, branch: ir.Operation) -> bool:
    """Whether every use of `alloc`, and of the views made of it, is inside
    `branch` (no view leaves it through a terminator's results)."""
    work = [alloc.results[0]]
    while work:
        value = work.pop()
        for use in value.uses:
            user = use.owner.operation
            if not is_inside(user, branch):
                return False
            derived = [r for r in user.results if isinstance(r.type, ir.MemRefType)]
            if not user.results and user.parent is not None and is_terminator(user):
                if user.parent == branch:
                    return False
                derived = [r for r in user.parent.results if isinstance(r.type, ir.MemRefType)]
            work += derived
    return True


def share(top: ir.Operation, branches: list[list[Sized]]) -> None:
    """The allocations of `branches` (sibling branches of `top`) as views of
    one byte buffer allocated before `top`; one branch's alone just move."""
    if len(branches) < 2:
        for alloc, _ in branches[0]:
            alloc.move_before(top)
        return
    offsets, size = [], 0
    for allocs in branches:
        end = 0
        for alloc, bytes_ in allocs:
            end = -(-end // ALIGNMENT) * ALIGNMENT
            offsets.append((alloc, end))
            end += bytes_
        size = max(size, end)
    with ir.InsertionPoint(top), top.location:
        shared = memref.alloc(ir.MemRefType.get([size], ir.IntegerType.get_signless(8)), [], [])
        # The views beside the buffer, outside `top`: a kernel outlined from
        # it takes each as an argument of its own, as it took the allocations.
        for alloc, offset in offsets:
            view = memref.view(alloc.results[0].type, shared,
                               arith.constant(ir.IndexType.get(), offset), [])
            alloc.results[0].replace_all_uses_with(view)
            alloc.erase()
