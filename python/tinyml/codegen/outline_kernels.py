"""tinyml-outline-kernels: every loop nest at the top of a public function
becomes a private function of its own, called in its place.

llc allocates registers per function: with every kernel in the model's one
function, a change to one kernel moves the spills and copies of the others
(adding one matmul kernel to KWS cost its unchanged pointwise loops 18
instructions per iteration). A kernel function is compiled on its own, and
kernels identical but for their buffers are one function in the object:
buffers (arena views, weights, the caller's tensors) are arguments, only
scalar constants are copied in, and LLVM's function merging folds the
copies. The functions are `noinline` (or opt would inline them back) and
internal to the object. With `noalias-constants`, an argument that is a
constant global (weights, biases, requantization tables) is
`llvm.noalias`: nothing writes it, so LLVM may keep its loads out of loops
that store (the output), which it otherwise must assume could overwrite
them. That pays on ARMv6-M (M0: KWS 14.00 -> 13.77 M, VWW -0.2%), not on
the DSP cores, whose tiles then hold the hoisted values in registers the
SMLADs need (M4: KWS 4.52 -> 4.80 M)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from ..ir.walk import constant_globals, functions
from ..pipeline.registry import Option, Pass, register

#: Ops a kernel copies in rather than taking their result as an argument.
COPIED = ("arith.constant", "ub.poison")


def _from_outside(value: ir.Value, top: ir.Block) -> bool:
    """Whether `value`, used in a nest at the top of block `top`, comes from
    outside it: an argument of `top`, or the result of an op in `top`."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return owner == top
    return owner.operation.block == top


def _captured(nest: ir.Operation, top: ir.Block) -> list[ir.Value]:
    """Values the nest uses that come from outside it, in first-use order."""
    found: dict[ir.Value, None] = {}

    def visit(op):
        for operand in op.operation.operands:
            if _from_outside(operand, top):
                found.setdefault(operand)
        return ir.WalkResult.ADVANCE

    nest.walk(visit, ir.WalkOrder.PRE_ORDER)
    return list(found)


def _rebind(nest: ir.Operation, replacements: dict[ir.Value, ir.Value]) -> None:
    """Every use inside `nest` of a key of `replacements` uses its value; one
    walk of the nest (the values' other uses, in other nests, are not
    visited: a value every kernel uses would make that quadratic)."""
    def visit(op):
        operands = op.operation.operands
        for index, operand in enumerate(operands):
            if operand in replacements:
                operands[index] = replacements[operand]
        return ir.WalkResult.ADVANCE

    nest.walk(visit, ir.WalkOrder.PRE_ORDER)


def _reads_global(value: ir.Value, constants: set[str]) -> bool:
    """Whether `value` is a `memref.get_global` of one of `constants`."""
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner.operation.name == "memref.get_global" \
        and ir.FlatSymbolRefAttr(owner.operation.attributes["name"]).value in constants


@register
class OutlineKernels(Pass):
    name = "tinyml-outline-kernels"
    summary = "Move every top-level loop nest of a public function into a noinline function"
    options = (
        Option("noalias-constants", bool, False,
               "mark the kernel arguments that are constant globals llvm.noalias"),
    )
    noalias_constants: bool

    def apply(self, module):
        body = module.regions[0].blocks[0]
        constants = {ir.StringAttr(op.attributes["sym_name"]).value
                     for op, _ in constant_globals(module)} if self.noalias_constants else set()
        for function in list(functions(module)):
            if "sym_visibility" in function.attributes:
                continue  # private: already a kernel, or a helper
            name = ir.StringAttr(function.attributes["sym_name"]).value
            block = function.regions[0].blocks[0]
            nests = [op.operation for op in block.operations
                     if op.operation.name == "scf.for" and not len(op.operation.results)]
            for index, nest in enumerate(nests):
                self.outline(nest, f"{name}_kernel_{index}", body, function, constants)
            if nests:
                # Each kernel is called, not jumped to: the call's return
                # address is how the profile tells which layer ran the
                # kernel's (possibly shared) code.
                function.attributes["passthrough"] = ir.ArrayAttr.get([ir.ArrayAttr.get(
                    [ir.StringAttr.get("disable-tail-calls"), ir.StringAttr.get("true")])])

    @staticmethod
    def outline(nest: ir.Operation, symbol: str, module_body: ir.Block,
                caller: ir.Operation, constants: set[str]) -> None:
        """Outline `nest` as `symbol`, its arguments that read `constants`
        (names of constant globals) `llvm.noalias`."""
        captured = _captured(nest, nest.block)
        arguments = [v for v in captured
                     if isinstance(v.owner, ir.Block) or v.owner.operation.name not in COPIED]
        with nest.location:
            with ir.InsertionPoint(caller):
                kernel = func.FuncOp(symbol, ([v.type for v in arguments], []))
            constant = [_reads_global(v, constants) for v in arguments]
            if any(constant):
                kernel.arg_attrs = ir.ArrayAttr.get([ir.DictAttr.get(
                    {"llvm.noalias": ir.UnitAttr.get()} if marked else {}) for marked in constant])
            kernel.attributes["sym_visibility"] = ir.StringAttr.get("private")
            kernel.attributes["passthrough"] = ir.ArrayAttr.get([ir.StringAttr.get("noinline")])
            # Local to the object: two models linked into one firmware each
            # have their `<model>_kernel_0`.
            kernel.attributes["llvm.linkage"] = ir.Attribute.parse("#llvm.linkage<internal>")
            entry = kernel.add_entry_block()
            with ir.InsertionPoint(nest):
                func.CallOp([], ir.FlatSymbolRefAttr.get(symbol), arguments)
            replacements = dict(zip(arguments, entry.arguments))
            with ir.InsertionPoint(entry):
                for value in captured:
                    if value not in replacements:
                        replacements[value] = value.owner.operation.clone(
                            ir.InsertionPoint(entry)).results[0]
                terminator = func.ReturnOp([])
            _rebind(nest, replacements)
            nest.move_before(terminator.operation)
