"""Walks over the IR that passes start from: the functions of a module,
the ops of its graph, the ops of one name, the constant globals."""
from __future__ import annotations

from mlir import ir


def functions(module: ir.Operation):
    """The func.func ops directly inside `module` that have a body; a
    declaration (`func.func private @f(...)`) has nothing to transform."""
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and len(op.operation.regions[0].blocks):
            yield op.operation


def graph_ops(func: ir.Operation) -> list[ir.Operation]:
    """The ops of a function's graph, in order: its top-level ops and, in
    place of a time loop (an `scf.for`, a recurrent layer's), the loop and
    then the ops of its body; never the ops inside a group."""
    found = []
    for op in func.regions[0].blocks[0].operations:
        found.append(op.operation)
        if op.operation.name == "scf.for":
            found += graph_ops(op.operation)
    return found


def in_graph(op: ir.Operation) -> bool:
    """Whether `op` is one of its function's `graph_ops`: at the top level
    or in a time loop's body, not in a group's."""
    parent = op.parent
    while parent is not None and parent.name == "scf.for":
        parent = parent.parent
    return parent is not None and parent.name == "func.func"


def ops_named(root: ir.Operation, name: str) -> list[ir.Operation]:
    """Every op called `name` inside `root`, in pre-order, collected before
    the caller rewrites any of them."""
    found = []

    def visit(op):
        if op.operation.name == name:
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def constant_globals(module: ir.Operation) -> list[tuple[ir.Operation, list[ir.Operation]]]:
    """Each constant `memref.global` with a value directly inside `module`
    and the `memref.get_global` ops that read it, in order."""
    gets: dict[str, list[ir.Operation]] = {}
    for get in ops_named(module, "memref.get_global"):
        gets.setdefault(ir.FlatSymbolRefAttr(get.attributes["name"]).value, []).append(get)
    return [(op.operation, gets.get(ir.StringAttr(op.operation.attributes["sym_name"]).value, []))
            for op in module.regions[0].blocks[0].operations
            if op.operation.name == "memref.global" and "constant" in op.operation.attributes
            and "initial_value" in op.operation.attributes]


def is_inside(op: ir.Operation, holder: ir.Operation) -> bool:
    """Whether `op` is nested, at any depth, in a region of `holder`."""
    while op.parent is not None:
        op = op.parent.operation
        if op == holder:
            return True
    return False


def is_terminator(op: ir.Operation) -> bool:
    """Whether `op` is the last op of its block."""
    ops = op.block.operations
    return len(ops) > 0 and ops[len(ops) - 1] == op
