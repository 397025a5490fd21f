"""tinyml-fuse-elementwise: maximal DAGs of element-wise ops over one
iteration space become one `tinyml.fused "elementwise"` group."""
from mlir import ir

from ..fusion import CHEAP, is_elementwise, outline, producer, shape, top_level_ops, users
from .registry import Option, Pass, functions, register


@register
class FuseElementwise(Pass):
    name = "tinyml-fuse-elementwise"
    summary = "Group DAGs of element-wise ops of one shape into single loop nests"
    options = (
        Option("max-ops", int, 32, "largest number of ops in one group", low=2, high=1024),
        Option("rematerialize", bool, True,
               "recompute a cheap multi-use producer in each consumer group "
               "when that removes its buffer"),
    )

    def apply(self, module):
        for func in functions(module):
            for members in self.plan_groups(top_level_ops(func)):
                outline(members, "elementwise")

    def plan_groups(self, ops: list[ir.Operation]) -> list[list[ir.Operation]]:
        """Groups in program order; each grows backwards from its root, the
        last op of the group, over same-shaped element-wise producers."""
        position = {op: i for i, op in enumerate(ops)}
        taken: set[ir.Operation] = set()
        groups = []
        for root in reversed(ops):
            if root in taken or not is_elementwise(root):
                continue
            members = self.grow(root, taken)
            if len(members) > 1:
                taken |= {op for op in members if op not in self.rematerialized(members)}
                groups.append(sorted(members, key=position.__getitem__))
        return list(reversed(groups))

    def grow(self, root: ir.Operation, taken: set[ir.Operation]) -> set[ir.Operation]:
        members = {root}
        changed = True
        while changed and len(members) < self.max_ops:
            changed = False
            for candidate in self.candidates(members, shape(root.results[0])):
                if candidate in taken:
                    continue
                if set(users(candidate)) <= members or self.worth_recomputing(candidate):
                    members.add(candidate)
                    changed = True
                    if len(members) >= self.max_ops:
                        break
        return members

    @staticmethod
    def candidates(members: set[ir.Operation], iteration_space: tuple) -> list[ir.Operation]:
        found = []
        for op in members:
            for value in op.operands:
                definer = producer(value)
                if (is_elementwise(definer) and definer not in members and definer not in found
                        and shape(definer.results[0]) == iteration_space):
                    found.append(definer)
        return found

    def worth_recomputing(self, op: ir.Operation) -> bool:
        # Recomputing only pays when every consumer can take a copy, so that
        # the producer's buffer disappears; an outside consumer keeps it.
        return (self.rematerialize and op.name in CHEAP
                and all(is_elementwise(user) and shape(user.results[0]) == shape(op.results[0])
                        for user in users(op)))

    @staticmethod
    def rematerialized(members: set[ir.Operation]) -> set[ir.Operation]:
        return {op for op in members if not set(users(op)) <= members}
