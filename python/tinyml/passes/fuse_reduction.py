"""tinyml-fuse-reduction: element-wise producers fuse into a reduction (the
sum of squares), element-wise consumers of its result fuse as its epilogue
(mean = sum / N then a scale; softmax then a scale)."""
from mlir import ir

from ..fusion import (REDUCTIONS, is_elementwise, only_user, outline, producer, shape,
                      top_level_ops, users)
from .registry import Option, Pass, functions, register


@register
class FuseReduction(Pass):
    name = "tinyml-fuse-reduction"
    summary = "Fuse element-wise producers and epilogues into reductions and softmax"
    options = (
        Option("max-ops", int, 16, "largest number of ops in one group", low=2, high=256),
    )

    def apply(self, module):
        for func in functions(module):
            position = {op: i for i, op in enumerate(top_level_ops(func))}
            # Outlining erases members; collect the roots before any of it.
            for op in [op for op in position if op.name in REDUCTIONS]:
                epilogue = self.epilogue(op)[: self.max_ops - 1]
                # The prologue is found nearest-first, so cutting it short
                # leaves the farther producers outside as inputs.
                prologue = self.prologue(op)[: self.max_ops - 1 - len(epilogue)]
                if prologue or epilogue:
                    outline(sorted([*prologue, op, *epilogue], key=position.__getitem__),
                            "reduction")

    def prologue(self, reduction: ir.Operation) -> list[ir.Operation]:
        """Same-shaped element-wise ops feeding the reduction's input and used
        nowhere else: they are computed as the reduction reads its input."""
        members, frontier = [], [reduction]
        space = shape(reduction.operands[0])
        while frontier:
            op = frontier.pop(0)
            for value in op.operands:
                definer = producer(value)
                if (is_elementwise(definer) and definer not in members
                        and shape(definer.results[0]) == space
                        and set(users(definer)) <= {reduction, *members}):
                    members.append(definer)
                    frontier.append(definer)
        return members

    @staticmethod
    def epilogue(reduction: ir.Operation) -> list[ir.Operation]:
        chain, current = [], reduction
        space = shape(reduction.results[0])
        while True:
            user = only_user(current)
            if not (is_elementwise(user) and shape(user.results[0]) == space):
                return chain
            chain.append(user)
            current = user
